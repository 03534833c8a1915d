package plugin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFormatToolResult_sortsKeys(t *testing.T) {
	got := FormatToolResult("Server Info", map[string]string{"version": "2.0.1", "status": "running"})
	if got != "Server Info\nstatus: running\nversion: 2.0.1" {
		t.Fatalf("got %q", got)
	}
}

func TestFormatListResult(t *testing.T) {
	if got := FormatListResult([]string{"alpha", "beta"}); got != "1. alpha\n2. beta" {
		t.Fatalf("got %q", got)
	}
	if got := FormatListResult(nil); got != "(no items)" {
		t.Fatalf("got %q", got)
	}
}

func TestResults(t *testing.T) {
	if !NewToolError("file not found").IsError() || NewToolResult("done").IsError() {
		t.Fatal("IsError")
	}
	r := NewResultBuilder().Content("Server Info\nstatus: running").Metadata("kind", "server-info").Build()
	if r.Content != "Server Info\nstatus: running" || r.Metadata["kind"] != "server-info" || r.IsError() {
		t.Fatalf("got %+v", r)
	}
}

func TestBuildToolDef_schema(t *testing.T) {
	d := BuildToolDef("hello", "Greet", ToolParamDef{Name: "name", Type: "string", Description: "who", Required: true},
		ToolParamDef{Name: "tags", Type: "array"})
	b, _ := json.Marshal(d.ToJSONSchema())
	want := `{"properties":{"name":{"description":"who","type":"string"},"tags":{"items":{"type":"string"},"type":"array"}},"required":["name"],"type":"object"}`
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
}

// session runs ServeIO on pipes, like a host would.
type session struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func start(t *testing.T, activate ActivateFunc) *session {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() { s.done <- ServeIO(activate, inR, outW); outW.Close() }()
	return s
}

func (s *session) send(line string) { s.in.Write([]byte(line + "\n")) }

func (s *session) read() map[string]any {
	lines := make(chan string, 1)
	go func() {
		if s.out.Scan() {
			lines <- s.out.Text()
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			s.t.Fatal("the plugin closed its output")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			s.t.Fatalf("not JSON: %s", l)
		}
		return m
	case <-time.After(10 * time.Second):
		s.t.Fatal("no answer")
	}
	return nil
}

func TestServe_callsSendCancelAndErrors(t *testing.T) {
	started := make(chan struct{})
	sawReason := make(chan string, 1)
	s := start(t, func(p *PluginContext) error {
		p.RegisterTool(ToolFromJSONFunc("weather", "Get weather", []ToolParamDef{{Name: "city", Type: "string"}},
			func(ctx context.Context, in json.RawMessage) (any, error) {
				var req struct{ City string }
				json.Unmarshal(in, &req)
				return map[string]any{"temp": 21, "city": req.City}, nil
			}))
		p.RegisterTool(&SimplePluginTool{Def: BuildToolDef("greet", "sends hello"),
			ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
				r, err := CallFrom(ctx).SendText(ctx, "你好！")
				if err != nil || !r.OK {
					return NewToolError("send failed"), nil
				}
				return NewResultBuilder().Content("sent").Metadata("kind", "greeting").Build(), nil
			}})
		p.RegisterTool(&SimplePluginTool{Def: BuildToolDef("wait", "waits for cancel"),
			ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
				close(started)
				<-ctx.Done()
				sawReason <- CallFrom(ctx).CancelReason()
				return nil, ctx.Err()
			}})
		p.RegisterTool(ToolFromFunc("boom", "panics", func(ctx context.Context, input string) (string, error) {
			panic("kaput")
		}))
		return nil
	})
	s.send(`{"id":1,"method":"activate","params":{"pluginId":"t"}}`)
	if tools := s.read()["tools"].([]any); len(tools) != 4 {
		t.Fatalf("tools: %v", tools)
	}
	s.send(`{"id":2,"method":"execute_tool","params":{"toolName":"weather","input":"{\"city\":\"Oslo\"}"}}`)
	if got := s.read(); got["result"] != `{"city":"Oslo","temp":21}` {
		t.Fatalf("weather: %v", got)
	}
	s.send(`{"id":3,"method":"execute_tool","params":{"toolName":"greet","input":"{}"}}`)
	send := s.read()
	params := send["params"].(map[string]any)
	if send["method"] != "send" || params["content"].([]any)[0].(map[string]any)["text"] != "你好！" {
		t.Fatalf("send: %v", send)
	}
	s.send(`{"method":"reply","params":{"rid":"` + params["rid"].(string) + `","ok":true}}`)
	if got := s.read()["result"].(map[string]any); got["content"] != "sent" {
		t.Fatalf("greet: %v", got)
	}
	s.send(`{"id":4,"method":"execute_tool","params":{"toolName":"wait","input":"{}"}}`)
	<-started
	s.send(`{"method":"cancel","params":{"id":4,"reason":"timeout"}}`)
	if got := s.read(); got["error"] != "cancelled: timeout" {
		t.Fatalf("cancel: %v", got)
	}
	if r := <-sawReason; r != "timeout" {
		t.Fatalf("CancelReason in the tool: %q", r)
	}
	s.send(`not json`)
	s.send(`{"id":5,"method":"execute_tool","params":{"toolName":"boom","input":"{}"}}`)
	if got := s.read(); !strings.Contains(got["error"].(string), "panicked: kaput") {
		t.Fatalf("boom: %v", got)
	}
	s.send(`{"id":6,"method":"execute_tool","params":{"toolName":"nope","input":"{}"}}`)
	if got := s.read(); got["error"] != "Unknown tool: nope" {
		t.Fatalf("unknown: %v", got)
	}
	s.send(`{"id":7,"method":"deactivate"}`)
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

// The ported xbot hello-world, built and run as a real process.
func TestHelloWorldExample_runsAsAProcess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hello-world")
	build := exec.Command("go", "build", "-o", bin, "./examples/hello-world")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(`{"id":1,"method":"activate","params":{"pluginId":"go-hello"}}
{"id":2,"method":"execute_tool","params":{"toolName":"hello","input":"{\"name\":\"Bob\"}"}}
{"id":3,"method":"execute_tool","params":{"toolName":"hello","input":"{}"}}
`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		if r, ok := m["result"].(string); ok {
			got[string(mustJSON(m["id"]))] = r
		}
	}
	if got["2"] != "Hello, Bob! 👋" || got["3"] != "Hello, World! 👋" {
		t.Fatalf("got %v from %s", got, out)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestServe_configAtActivationAndOnConfigure(t *testing.T) {
	versions := make(chan string, 1)
	s := start(t, func(p *PluginContext) error {
		p.OnConfigure(func(config map[string]any, version string) { versions <- version })
		p.RegisterTool(ToolFromFunc("units", "the configured units", func(ctx context.Context, input string) (string, error) {
			return fmt.Sprint(p.CurrentConfig()["units"]), nil
		}))
		return nil
	})
	s.send(`{"id":1,"method":"activate","params":{"pluginId":"t","config":{"units":"metric"},"configVersion":"v1"}}`)
	s.read()
	s.send(`{"id":2,"method":"execute_tool","params":{"toolName":"units","input":"{}"}}`)
	if got := s.read(); got["result"] != "metric" {
		t.Fatalf("at activation: %v", got)
	}
	s.send(`{"method":"configure","params":{"config":{"units":"imperial"},"version":"v2"}}`)
	if v := <-versions; v != "v2" {
		t.Fatalf("OnConfigure version: %q", v)
	}
	s.send(`{"id":3,"method":"execute_tool","params":{"toolName":"units","input":"{}"}}`)
	if got := s.read(); got["result"] != "imperial" {
		t.Fatalf("after configure: %v", got)
	}
	s.send(`{"id":4,"method":"deactivate"}`)
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

func TestServe_declaresAllowedCallersAndOutputSchema(t *testing.T) {
	s := start(t, func(p *PluginContext) error {
		def := BuildToolDef("sum", "adds")
		def.AllowedCallers = []string{"direct", "programmatic"}
		def.OutputSchema = map[string]any{"type": "object", "required": []string{"sum"}}
		p.RegisterTool(&SimplePluginTool{Def: def, ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
			return NewResultBuilder().Content("3").Build(), nil
		}})
		p.RegisterTool(&SimplePluginTool{Def: BuildToolDef("plain", "plain"), ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
			return NewResultBuilder().Content("p").Build(), nil
		}})
		return nil
	})
	s.send(`{"id":1,"method":"activate","params":{"pluginId":"t"}}`)
	tools := s.read()["tools"].([]any)
	byName := map[string]map[string]any{}
	for _, t := range tools {
		m := t.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if got := fmt.Sprint(byName["sum"]["allowedCallers"]); got != "[direct programmatic]" {
		t.Fatalf("allowedCallers: %v", got)
	}
	if got := fmt.Sprint(byName["sum"]["outputSchema"]); got != "map[required:[sum] type:object]" {
		t.Fatalf("outputSchema: %v", got)
	}
	if _, ok := byName["plain"]["allowedCallers"]; ok {
		t.Fatalf("plain declares no callers: %v", byName["plain"])
	}
	if _, ok := byName["plain"]["outputSchema"]; ok {
		t.Fatalf("plain declares no output schema: %v", byName["plain"])
	}
}
