package plugin

import (
	"context"
	"net/http"
	"strings"
)

// Trace is the W3C Trace Context of a call: the span toolbus runs the call in. Pass it on to the
// services a tool calls (Inject), so the trace goes on there; with OpenTelemetry,
// propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(h)) after Inject(h) gives the
// parent of the tool's own spans.
type Trace struct {
	// Traceparent is "00-<32 hex trace id>-<16 hex span id>-<2 hex flags>".
	Traceparent string
	// Tracestate is the vendor list, or "".
	Tracestate string
}

const maxTracestate = 512

// ParseTrace reads wire values; ok is false when traceparent is missing or not a W3C one (version ff,
// all-zero ids, upper case). A tracestate that is not printable ASCII of at most 512 characters is
// dropped.
func ParseTrace(traceparent, tracestate string) (t Trace, ok bool) {
	if !validTraceparent(traceparent) {
		return Trace{}, false
	}
	if len(tracestate) > maxTracestate || !printable(tracestate) {
		tracestate = ""
	}
	return Trace{Traceparent: traceparent, Tracestate: tracestate}, true
}

// TraceID is the trace's id (32 hex digits).
func (t Trace) TraceID() string { return t.Traceparent[3:35] }

// SpanID is the id of the call's span (16 hex digits): the parent of the spans the tool makes.
func (t Trace) SpanID() string { return t.Traceparent[36:52] }

// Sampled says whether the caller records this trace.
func (t Trace) Sampled() bool { return hexValue(t.Traceparent[54])&1 == 1 }

// Inject sets the traceparent header, and tracestate when there is one, on h (an outgoing request's
// headers, or an OpenTelemetry propagation.HeaderCarrier).
func (t Trace) Inject(h http.Header) {
	h.Set("traceparent", t.Traceparent)
	if t.Tracestate != "" {
		h.Set("tracestate", t.Tracestate)
	}
}

// TraceFrom returns the trace context of the call ctx belongs to; ok is false outside a call or when
// toolbus sent none.
func TraceFrom(ctx context.Context) (t Trace, ok bool) {
	c := CallFrom(ctx)
	if c == nil || c.trace == nil {
		return Trace{}, false
	}
	return *c.trace, true
}

// Trace returns the call's trace context; ok is false when toolbus sent none.
func (c *Call) Trace() (t Trace, ok bool) {
	if c.trace == nil {
		return Trace{}, false
	}
	return *c.trace, true
}

func validTraceparent(s string) bool {
	n := len(s)
	if n < 55 || n > 256 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return false
	}
	if !lowerHex(s[0:2]) || !lowerHex(s[3:35]) || !lowerHex(s[36:52]) || !lowerHex(s[53:55]) {
		return false
	}
	if s[0:2] == "ff" || strings.Trim(s[3:35], "0") == "" || strings.Trim(s[36:52], "0") == "" {
		return false
	}
	if s[0:2] == "00" {
		return n == 55
	}
	// a later version may append fields after a dash
	return n == 55 || s[55] == '-'
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9') && !(s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func hexValue(c byte) int {
	if c >= 'a' {
		return int(c-'a') + 10
	}
	return int(c - '0')
}
