package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		ToolName string `json:"toolName"`
		Input    string `json:"input"` // the arguments, as a JSON string
	} `json:"params"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64*1024), 16*1024*1024) // the default 64 KiB is too small for big inputs
	out := json.NewEncoder(os.Stdout)               // one line per Encode; os.Stdout is unbuffered
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			continue
		}
		answer := map[string]any{}
		if len(req.ID) > 0 {
			answer["id"] = req.ID
		}
		switch req.Method {
		case "activate":
			answer["tools"] = []map[string]any{{
				"name":        "go_greet",
				"description": "Greet someone by name.",
				"inputSchema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}},
					"required":   []string{"name"},
				},
			}}
		case "execute_tool":
			var args struct {
				Name string `json:"name"`
			}
			if req.Params.ToolName != "go_greet" {
				answer["error"] = "unknown tool: " + req.Params.ToolName
			} else if err := json.Unmarshal([]byte(req.Params.Input), &args); err != nil {
				answer["error"] = "bad input: " + err.Error()
			} else {
				answer["result"] = "Hello, " + args.Name + "!"
			}
		case "deactivate":
			return
		default:
			answer["error"] = "unknown method: " + req.Method
		}
		if err := out.Encode(answer); err != nil {
			os.Exit(1)
		}
	}
}
