// Package plugin writes toolbus stdio plugins in Go with the shapes of xbot's plugin SDK:
// BuildToolDef, SimplePluginTool, ToolFromFunc, ToolFromJSONFunc, ToolResult and its builders, so an
// xbot plugin ports by changing its imports. Serve runs the plugin over toolbus's stdio protocol.
package plugin

import (
	"context"
	"encoding/json"
	"fmt"
)

// ToolParamDef declares one parameter of a tool.
type ToolParamDef struct {
	Name        string        `json:"name"`
	Type        string        `json:"type"`
	Description string        `json:"description,omitempty"`
	Required    bool          `json:"required,omitempty"`
	Enum        []string      `json:"enum,omitempty"`
	Items       *ToolParamDef `json:"items,omitempty"`
}

// ToolDef is what the model sees of a tool. InputSchema, when set, wins over Parameters.
// AllowedCallers says who may call it ("direct", "programmatic"; empty: direct only), OutputSchema
// the JSON Schema of its structured result (a result whose data does not match is INVALID_OUTPUT).
type ToolDef struct {
	Name           string         `json:"name"`
	Description    string         `json:"description"`
	Parameters     []ToolParamDef `json:"parameters,omitempty"`
	InputSchema    map[string]any `json:"inputSchema,omitempty"`
	AllowedCallers []string       `json:"allowedCallers,omitempty"`
	OutputSchema   map[string]any `json:"outputSchema,omitempty"`
}

// BuildToolDef declares a tool whose JSON Schema is generated from its parameters.
func BuildToolDef(name, description string, params ...ToolParamDef) ToolDef {
	return ToolDef{Name: name, Description: description, Parameters: params}
}

func (p ToolParamDef) schema() map[string]any {
	t := p.Type
	if t == "" {
		t = "string"
	}
	s := map[string]any{"type": t}
	if p.Description != "" {
		s["description"] = p.Description
	}
	if len(p.Enum) > 0 {
		s["enum"] = p.Enum
	}
	if p.Items != nil {
		s["items"] = p.Items.schema()
	} else if t == "array" {
		s["items"] = map[string]any{"type": "string"}
	}
	return s
}

// ToJSONSchema is the object schema of the arguments.
func (d ToolDef) ToJSONSchema() map[string]any {
	if d.InputSchema != nil {
		return d.InputSchema
	}
	props := map[string]any{}
	required := []string{}
	for _, p := range d.Parameters {
		props[p.Name] = p.schema()
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// PluginTool is a tool a plugin registers.
type PluginTool interface {
	Definition() ToolDef
	Execute(ctx context.Context, input string) (*ToolResult, error)
}

// ToolCallContext is everything toolbus says about a call (PluginToolV2).
type ToolCallContext struct {
	Input      string
	StreamID   string
	TurnID     string
	ToolCallID string
	UserID     string
	GroupID    string
	Platform   string
	Permission string
	Channel    string
	Attempt    int
	Message    json.RawMessage
	// Trace is the call's W3C trace context (its span), or nil when toolbus sent none.
	Trace *Trace
}

// PluginToolV2 is a tool that wants the full call context.
type PluginToolV2 interface {
	PluginTool
	ExecuteV2(ctx context.Context, tc ToolCallContext) (*ToolResult, error)
}

// SimplePluginTool is a definition plus a function.
type SimplePluginTool struct {
	Def    ToolDef
	ExecFn func(ctx context.Context, input string) (*ToolResult, error)
}

// Definition returns Def.
func (t *SimplePluginTool) Definition() ToolDef { return t.Def }

// Execute calls ExecFn.
func (t *SimplePluginTool) Execute(ctx context.Context, input string) (*ToolResult, error) {
	return t.ExecFn(ctx, input)
}

// ToolFromFunc makes a tool of a function from the raw input (the arguments' JSON text) to a text.
func ToolFromFunc(name, description string, fn func(ctx context.Context, input string) (string, error)) PluginTool {
	return &SimplePluginTool{
		Def: BuildToolDef(name, description),
		ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
			out, err := fn(ctx, input)
			if err != nil {
				return nil, err
			}
			return NewToolResult(out), nil
		},
	}
}

// ToolFromJSONFunc makes a tool of a function from the JSON arguments to any value; a string is the
// text, any other value is marshalled to JSON.
func ToolFromJSONFunc(name, description string, params []ToolParamDef,
	fn func(ctx context.Context, input json.RawMessage) (any, error)) PluginTool {
	return &SimplePluginTool{
		Def: BuildToolDef(name, description, params...),
		ExecFn: func(ctx context.Context, input string) (*ToolResult, error) {
			v, err := fn(ctx, json.RawMessage(input))
			if err != nil {
				return nil, err
			}
			if s, ok := v.(string); ok {
				return NewToolResult(s), nil
			}
			if r, ok := v.(*ToolResult); ok {
				return r, nil
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("cannot marshal the result: %w", err)
			}
			return NewToolResult(string(b)), nil
		},
	}
}

// ParseToolInputString reads one string argument.
func ParseToolInputString(input, key string) (string, error) {
	var args map[string]any
	if err := json.Unmarshal([]byte(input), &args); err != nil {
		return "", fmt.Errorf("input is not a JSON object: %w", err)
	}
	v, ok := args[key]
	if !ok {
		return "", fmt.Errorf("missing argument %q", key)
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("argument %q must be a non-empty string", key)
	}
	return s, nil
}
