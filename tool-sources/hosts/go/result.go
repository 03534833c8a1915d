package plugin

import (
	"sort"
	"strconv"
	"strings"
)

// ToolResult is what a tool answers: text, an error flag and metadata for renderers.
type ToolResult struct {
	Content  string
	Metadata map[string]string
	isError  bool
}

// NewToolResult is a successful text result.
func NewToolResult(content string) *ToolResult { return &ToolResult{Content: content} }

// NewToolError is an expected failure: the model sees the message and can adapt.
func NewToolError(message string) *ToolResult { return &ToolResult{Content: message, isError: true} }

// IsError tells whether the result is an error result.
func (r *ToolResult) IsError() bool { return r != nil && r.isError }

// ResultBuilder builds a ToolResult step by step.
type ResultBuilder struct{ r ToolResult }

// NewResultBuilder starts a result.
func NewResultBuilder() *ResultBuilder { return &ResultBuilder{} }

// Content sets the text.
func (b *ResultBuilder) Content(s string) *ResultBuilder { b.r.Content = s; return b }

// Metadata adds one metadata entry.
func (b *ResultBuilder) Metadata(key, value string) *ResultBuilder {
	if b.r.Metadata == nil {
		b.r.Metadata = map[string]string{}
	}
	b.r.Metadata[key] = value
	return b
}

// Error marks the result as an error result.
func (b *ResultBuilder) Error() *ResultBuilder { b.r.isError = true; return b }

// Build returns the result.
func (b *ResultBuilder) Build() *ToolResult { r := b.r; return &r }

// FormatToolResult is the title, then one "key: value" line per field, keys sorted.
func FormatToolResult(title string, fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := []string{}
	if title != "" {
		lines = append(lines, title)
	}
	for _, k := range keys {
		lines = append(lines, k+": "+fields[k])
	}
	return strings.Join(lines, "\n")
}

// FormatListResult numbers the items from 1; "(no items)" when there are none.
func FormatListResult(items []string) string {
	if len(items) == 0 {
		return "(no items)"
	}
	lines := make([]string, len(items))
	for i, it := range items {
		lines[i] = strconv.Itoa(i+1) + ". " + it
	}
	return strings.Join(lines, "\n")
}
