package plugin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"sync"
	"time"
)

// PluginContext is what Activate receives: register tools, read the config, log.
type PluginContext struct {
	PluginID string
	// Config is the configuration at activation: toolbus.yaml's plugins.<id>.config, else plugin.json's
	// config (TOOLBUS_PLUGIN_CONFIG). CurrentConfig follows later changes.
	Config   map[string]any
	Logger   *log.Logger
	tools    []PluginTool
	names    map[string]bool
	mu       sync.Mutex
	current  map[string]any
	onConfig []func(config map[string]any, version string)
}

// CurrentConfig is the configuration now: Config, replaced whenever toolbus.yaml's changes (the
// "configure" message); safe to call from any goroutine.
func (p *PluginContext) CurrentConfig() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.current
}

// OnConfigure registers fn, called with the new configuration and its version when toolbus.yaml's
// changes while the plugin runs (the plugin is not restarted). Register it in Activate.
func (p *PluginContext) OnConfigure(fn func(config map[string]any, version string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onConfig = append(p.onConfig, fn)
}

func ownConfig() map[string]any {
	var c map[string]any
	if raw := os.Getenv("TOOLBUS_PLUGIN_CONFIG"); raw != "" {
		json.Unmarshal([]byte(raw), &c)
	}
	return c
}

func (p *PluginContext) configure(config map[string]any, version string) {
	if config == nil {
		config = ownConfig()
	}
	p.mu.Lock()
	p.current = config
	fns := append([]func(map[string]any, string){}, p.onConfig...)
	p.mu.Unlock()
	for _, fn := range fns {
		fn(config, version)
	}
}

// RegisterTool adds a tool; a second tool of the same name is skipped with a warning.
func (p *PluginContext) RegisterTool(t PluginTool) {
	name := t.Definition().Name
	if p.names[name] {
		p.Logger.Printf("tool %s registered twice; the first is kept", name)
		return
	}
	p.names[name] = true
	p.tools = append(p.tools, t)
}

// ActivateFunc registers the plugin's tools.
type ActivateFunc func(pctx *PluginContext) error

type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type executeParams struct {
	ToolName string `json:"toolName"`
	Input    string `json:"input"`
	Context  struct {
		StreamID    string          `json:"streamId"`
		TurnID      string          `json:"turnId"`
		ToolCallID  string          `json:"toolCallId"`
		UserID      string          `json:"userId"`
		GroupID     string          `json:"groupId"`
		Platform    string          `json:"platform"`
		Permission  string          `json:"permission"`
		Channel     string          `json:"channel"`
		Attempt     int             `json:"attempt"`
		Message     json.RawMessage `json:"message"`
		Traceparent string          `json:"traceparent"`
		Tracestate  string          `json:"tracestate"`
	} `json:"context"`
}

// Call is one running execute_tool request; reach it from a tool with CallFrom(ctx).
type Call struct {
	id     json.RawMessage
	server *server
	trace  *Trace
	mu     sync.Mutex
	reason string
}

// CancelReason says why the host stopped the call: "timeout", the reason text of the bot's cancel
// event, "cancelled" or "shutdown"; "" while the call was not cancelled. The call's context is
// cancelled at the same time.
func (c *Call) CancelReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

type callKey struct{}

// CallFrom returns the call a tool's context belongs to, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Reply is the host's answer to Send or Ask.
type Reply struct {
	OK      bool            `json:"ok"`
	Error   string          `json:"error,omitempty"`
	Action  string          `json:"action,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
}

// SendText posts a chat message now (toolbus send_message) and waits for the host's reply.
func (c *Call) SendText(ctx context.Context, text string) (Reply, error) {
	return c.server.request(ctx, "send", map[string]any{"id": c.id,
		"content": []map[string]string{{"type": "text", "text": text}}})
}

// Ask asks the user and waits for the answer (action accept, decline, cancel or expired).
func (c *Call) Ask(ctx context.Context, message string, schema map[string]any, timeout time.Duration) (Reply, error) {
	p := map[string]any{"id": c.id, "message": message}
	if schema != nil {
		p["schema"] = schema
	}
	if timeout > 0 {
		p["timeoutMs"] = timeout.Milliseconds()
	}
	return c.server.request(ctx, "ask", p)
}

// Progress reports progress; total <= 0 means unknown.
func (c *Call) Progress(progress, total float64, message string) {
	p := map[string]any{"id": c.id, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	c.server.write(map[string]any{"method": "progress", "params": p})
}

type server struct {
	out     io.Writer
	mu      sync.Mutex
	tools   map[string]PluginTool
	calls   map[string]context.CancelFunc
	running map[string]*Call
	pending map[string]chan Reply
	nextRid int
	wg      sync.WaitGroup
	logger  *log.Logger
	pctx    *PluginContext
}

func (s *server) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.logger.Printf("cannot encode an answer: %v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(append(b, '\n'))
}

func (s *server) request(ctx context.Context, method string, params map[string]any) (Reply, error) {
	s.mu.Lock()
	s.nextRid++
	rid := "g" + strconv.Itoa(s.nextRid)
	ch := make(chan Reply, 1)
	s.pending[rid] = ch
	s.mu.Unlock()
	defer func() { s.mu.Lock(); delete(s.pending, rid); s.mu.Unlock() }()
	params["rid"] = rid
	s.write(map[string]any{"method": method, "params": params})
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// Serve runs the plugin on stdin and stdout until stdin ends or deactivate arrives.
func Serve(activate ActivateFunc) error {
	return ServeIO(activate, os.Stdin, os.Stdout)
}

// ServeIO runs the plugin on the given streams.
func ServeIO(activate ActivateFunc, in io.Reader, out io.Writer) error {
	logger := log.New(os.Stderr, "plugin: ", 0)
	s := &server{out: out, tools: map[string]PluginTool{}, calls: map[string]context.CancelFunc{},
		running: map[string]*Call{},
		pending: map[string]chan Reply{}, logger: logger}
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
	defer s.wg.Wait()
	for scanner.Scan() {
		var req request
		if err := json.Unmarshal(scanner.Bytes(), &req); err != nil {
			if len(scanner.Bytes()) > 0 {
				logger.Printf("ignoring a line that is not a JSON object: %v", err)
			}
			continue
		}
		switch req.Method {
		case "activate":
			s.activate(activate, req)
		case "execute_tool":
			s.execute(req)
		case "cancel":
			var p struct {
				ID     json.RawMessage `json:"id"`
				Reason string          `json:"reason"`
			}
			json.Unmarshal(req.Params, &p)
			s.mu.Lock()
			cancel := s.calls[string(p.ID)]
			call := s.running[string(p.ID)]
			s.mu.Unlock()
			if call != nil {
				call.mu.Lock()
				if call.reason == "" {
					call.reason = p.Reason
					if call.reason == "" {
						call.reason = "cancelled"
					}
				}
				call.mu.Unlock()
			}
			if cancel != nil {
				cancel()
			}
		case "configure":
			var p struct {
				Config  map[string]any `json:"config"`
				Version string         `json:"version"`
			}
			json.Unmarshal(req.Params, &p)
			s.mu.Lock()
			pctx := s.pctx
			s.mu.Unlock()
			if pctx != nil {
				pctx.configure(p.Config, p.Version)
			}
		case "reply":
			var p struct {
				Rid string `json:"rid"`
				Reply
			}
			json.Unmarshal(req.Params, &p)
			s.mu.Lock()
			ch := s.pending[p.Rid]
			s.mu.Unlock()
			if ch != nil {
				ch <- p.Reply
			}
		case "deactivate":
			s.cancelAll()
			return nil
		default:
			if len(req.ID) > 0 {
				s.write(map[string]any{"id": req.ID, "error": "unknown method: " + req.Method})
			}
		}
	}
	s.cancelAll()
	return scanner.Err()
}

func (s *server) cancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.calls {
		cancel()
	}
}

func (s *server) activate(activate ActivateFunc, req request) {
	var p struct {
		PluginID string         `json:"pluginId"`
		Config   map[string]any `json:"config"`
	}
	json.Unmarshal(req.Params, &p)
	if p.Config == nil {
		p.Config = ownConfig()
	}
	pctx := &PluginContext{PluginID: p.PluginID, Config: p.Config, current: p.Config, names: map[string]bool{},
		Logger: log.New(os.Stderr, "plugin "+p.PluginID+": ", 0)}
	s.mu.Lock()
	s.pctx = pctx
	s.mu.Unlock()
	if err := activate(pctx); err != nil {
		s.write(map[string]any{"id": req.ID, "error": err.Error()})
		return
	}
	decls := []map[string]any{}
	for _, t := range pctx.tools {
		d := t.Definition()
		s.tools[d.Name] = t
		decl := map[string]any{"name": d.Name, "description": d.Description, "inputSchema": d.ToJSONSchema()}
		if len(d.AllowedCallers) > 0 {
			decl["allowedCallers"] = d.AllowedCallers
		}
		if d.OutputSchema != nil {
			decl["outputSchema"] = d.OutputSchema
		}
		decls = append(decls, decl)
	}
	s.write(map[string]any{"id": req.ID, "tools": decls})
}

func (s *server) execute(req request) {
	var p executeParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		s.write(map[string]any{"id": req.ID, "error": "bad params: " + err.Error()})
		return
	}
	tool := s.tools[p.ToolName]
	if tool == nil {
		s.write(map[string]any{"id": req.ID, "error": "Unknown tool: " + p.ToolName})
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	call := &Call{id: req.ID, server: s}
	if t, ok := ParseTrace(p.Context.Traceparent, p.Context.Tracestate); ok {
		call.trace = &t
	}
	ctx = context.WithValue(ctx, callKey{}, call)
	key := string(req.ID)
	s.mu.Lock()
	s.calls[key] = cancel
	s.running[key] = call
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.calls, key)
			delete(s.running, key)
			s.mu.Unlock()
			cancel()
		}()
		answer := map[string]any{"id": req.ID}
		result, err := run(ctx, tool, p)
		switch {
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			answer["error"] = "cancelled: " + call.CancelReason()
		case err != nil:
			answer["error"] = err.Error()
		case result == nil:
		case result.IsError():
			answer["error"] = result.Content
		case len(result.Metadata) > 0:
			answer["result"] = map[string]any{"content": result.Content, "metadata": result.Metadata}
		default:
			answer["result"] = result.Content
		}
		s.write(answer)
	}()
}

func run(ctx context.Context, tool PluginTool, p executeParams) (r *ToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("tool %s panicked: %v", p.ToolName, v)
		}
	}()
	if v2, ok := tool.(PluginToolV2); ok {
		c := p.Context
		tc := ToolCallContext{Input: p.Input, StreamID: c.StreamID, TurnID: c.TurnID,
			ToolCallID: c.ToolCallID, UserID: c.UserID, GroupID: c.GroupID, Platform: c.Platform,
			Permission: c.Permission, Channel: c.Channel, Attempt: c.Attempt, Message: c.Message}
		if t, ok := TraceFrom(ctx); ok {
			tc.Trace = &t
		}
		return v2.ExecuteV2(ctx, tc)
	}
	return tool.Execute(ctx, p.Input)
}
