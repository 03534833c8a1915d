// The xbot hello-world plugin, ported to toolbus: only the import and main changed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"toolbus.dev/plugin"
)

func activate(pctx *plugin.PluginContext) error {
	pctx.RegisterTool(&plugin.SimplePluginTool{
		Def: plugin.BuildToolDef("hello", "Greet someone by name. Returns a friendly greeting message.",
			plugin.ToolParamDef{Name: "name", Type: "string", Description: "The person to greet"},
		),
		ExecFn: func(ctx context.Context, input string) (*plugin.ToolResult, error) {
			name, err := plugin.ParseToolInputString(input, "name")
			if err != nil {
				name = "World"
			}
			return plugin.NewToolResult(fmt.Sprintf("Hello, %s! 👋", name)), nil
		},
	})

	pctx.RegisterTool(plugin.ToolFromFunc("double", "Doubles a number",
		func(ctx context.Context, input string) (string, error) {
			return input + input, nil
		}))

	pctx.RegisterTool(plugin.ToolFromJSONFunc("weather", "Get weather",
		[]plugin.ToolParamDef{{Name: "city", Type: "string"}},
		func(ctx context.Context, input json.RawMessage) (any, error) {
			var req struct {
				City string `json:"city"`
			}
			json.Unmarshal(input, &req)
			return map[string]any{"temp": 21, "city": req.City}, nil // auto-marshalled
		}))
	return nil
}

func main() {
	if err := plugin.Serve(activate); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
