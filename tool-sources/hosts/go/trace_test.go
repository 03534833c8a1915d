package plugin

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

const testTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

type traceV2 struct{ SimplePluginTool }

func (t *traceV2) ExecuteV2(ctx context.Context, tc ToolCallContext) (*ToolResult, error) {
	if tc.Trace == nil {
		return NewToolResult("none"), nil
	}
	return NewToolResult(tc.Trace.SpanID()), nil
}

// A call's trace context reaches tool code through its context.Context (TraceFrom, CallFrom(ctx).Trace),
// as the headers to pass on (Inject), and in a PluginToolV2's ToolCallContext.
func TestServe_theCallsTraceContextReachesTheTool(t *testing.T) {
	s := start(t, func(p *PluginContext) error {
		p.RegisterTool(ToolFromJSONFunc("traced", "the trace headers of this call", nil,
			func(ctx context.Context, in json.RawMessage) (any, error) {
				tr, ok := TraceFrom(ctx)
				if !ok {
					return map[string]any{"trace": nil}, nil
				}
				h := http.Header{}
				tr.Inject(h)
				fromCall, _ := CallFrom(ctx).Trace()
				return map[string]any{"traceparent": h.Get("traceparent"), "tracestate": h.Get("tracestate"),
					"headers": len(h), "traceId": tr.TraceID(), "spanId": tr.SpanID(), "sampled": tr.Sampled(),
					"sameAsCall": fromCall == tr}, nil
			}))
		p.RegisterTool(&traceV2{SimplePluginTool{Def: BuildToolDef("traced_v2", "the span id, V2")}})
		return nil
	})
	s.send(`{"id":1,"method":"activate","params":{"pluginId":"t"}}`)
	s.read()
	s.send(`{"id":2,"method":"execute_tool","params":{"toolName":"traced","input":"{}","context":{"streamId":"s",` +
		`"traceparent":"` + testTraceparent + `","tracestate":"core=1"}}}`)
	got := resultObject(t, s.read())
	want := map[string]any{"traceparent": testTraceparent, "tracestate": "core=1", "headers": float64(2),
		"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7", "sampled": true, "sameAsCall": true}
	if !equalMaps(got, want) {
		t.Fatalf("traced: %v", got)
	}
	s.send(`{"id":3,"method":"execute_tool","params":{"toolName":"traced","input":"{}","context":{"traceparent":"nope"}}}`)
	if r := resultObject(t, s.read()); r["trace"] != nil || len(r) != 1 {
		t.Fatalf("a bad traceparent: %v", r)
	}
	s.send(`{"id":4,"method":"execute_tool","params":{"toolName":"traced_v2","input":"{}","context":{"traceparent":"` +
		testTraceparent + `"}}}`)
	if got := s.read(); got["result"] != "00f067aa0ba902b7" {
		t.Fatalf("V2: %v", got)
	}
	s.send(`{"id":5,"method":"execute_tool","params":{"toolName":"traced_v2","input":"{}"}}`)
	if got := s.read(); got["result"] != "none" {
		t.Fatalf("V2 without a trace: %v", got)
	}
	s.send(`{"id":6,"method":"deactivate"}`)
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

func TestParseTrace_onlyW3cTraceparents(t *testing.T) {
	if tr, ok := ParseTrace(testTraceparent, "a=1"); !ok || tr.Tracestate != "a=1" || !tr.Sampled() {
		t.Fatalf("valid: %+v %v", tr, ok)
	}
	bad := []string{"", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", testTraceparent + "-x",
		"ff" + testTraceparent[2:], "00-00000000000000000000000000000000" + testTraceparent[35:],
		testTraceparent[:36] + "0000000000000000-01", testTraceparent[:54]}
	for _, b := range bad {
		if _, ok := ParseTrace(b, ""); ok {
			t.Errorf("accepted %q", b)
		}
	}
	if _, ok := ParseTrace("01"+testTraceparent[2:]+"-more", ""); !ok {
		t.Error("a later version with more fields after a dash is valid")
	}
	if _, ok := ParseTrace("01"+testTraceparent[2:]+"more", ""); ok {
		t.Error("a later version needs a dash before more fields")
	}
	long := make([]byte, 513)
	for i := range long {
		long[i] = 'x'
	}
	if tr, _ := ParseTrace(testTraceparent, string(long)); tr.Tracestate != "" {
		t.Error("an over-long tracestate is dropped")
	}
	if tr, _ := ParseTrace(testTraceparent[:53]+"00", "caf\u00e9=1"); tr.Tracestate != "" || tr.Sampled() {
		t.Errorf("non-ASCII tracestate dropped, unsampled flag read: %+v", tr)
	}
}

// resultObject reads an answer's result, the JSON text a ToolFromJSONFunc tool answers.
func resultObject(t *testing.T, answer map[string]any) map[string]any {
	text, _ := answer["result"].(string)
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("not a JSON object result: %v", answer)
	}
	return m
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
