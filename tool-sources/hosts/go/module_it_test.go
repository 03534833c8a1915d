//go:build serve

package plugin

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is the first fenced block of lang after the heading in README.md.
func readmeBlock(t *testing.T, lang, heading string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("no heading %q in README.md", heading)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(text[i:])
	if m == nil {
		t.Fatalf("no %q block after %q in README.md", lang, heading)
	}
	return m[1]
}

func serverJar(t *testing.T) string {
	t.Helper()
	jar := os.Getenv("TOOLBUS_JAR")
	if jar == "" {
		jar, _ = filepath.Abs("../../../server/target/toolbus-server.jar")
	}
	if _, err := os.Stat(jar); err != nil {
		if os.Getenv("TOOLBUS_REQUIRE_JAR") == "1" {
			t.Fatalf("the server jar %s is missing", jar)
		}
		t.Skipf("the server jar %s is missing: mvn -pl server -am package -DskipTests", jar)
	}
	return jar
}

// TestServeIT_aPluginInAnotherModule writes the README's go.mod (its replace pointing at this folder) and
// plugin into a module outside this one, vets and builds it without a module proxy, and runs it under
// toolbus serve.
func TestServeIT_aPluginInAnotherModule(t *testing.T) {
	jar := serverJar(t)
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(t.TempDir(), "shout")
	folder := filepath.Join(t.TempDir(), "plugins", "shout")
	for _, d := range []string{module, folder} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gomod := readmeBlock(t, "", "## Use it from your module")
	const placeholder = "/path/to/toolbus/tool-sources/hosts/go"
	if !strings.Contains(gomod, "replace toolbus.dev/plugin => "+placeholder) {
		t.Fatalf("the README's go.mod has no replace line: %s", gomod)
	}
	write(t, filepath.Join(module, "go.mod"), strings.Replace(gomod, placeholder, here, 1))
	write(t, filepath.Join(module, "main.go"), readmeBlock(t, "go", "## A plugin"))
	write(t, filepath.Join(folder, "plugin.json"), readmeBlock(t, "json", "## A plugin"))
	for _, args := range [][]string{{"vet", "./..."}, {"build", "-o", filepath.Join(folder, "shout"), "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = module
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}

	turn := `{"type":"tool_calls","stream_id":"packages","turn_id":"t1","calls":[` +
		`{"tool_call_id":"c1","name":"shout","arguments":{"text":"hello"}},` +
		`{"tool_call_id":"c2","name":"shout","arguments":{"text":""}}]}` + "\n"
	serve := exec.Command("java", "-Xmx256m", "-jar", jar, "serve", "--bus", "stdio", "--plugins",
		filepath.Dir(folder), "--log-level", "warn")
	serve.Stdin = strings.NewReader(turn)
	var stderr strings.Builder
	serve.Stderr = &stderr
	out, err := serve.Output()
	if err != nil {
		t.Fatalf("toolbus serve: %v\n%s", err, stderr.String())
	}
	results := map[string]map[string]any{}
	scanner := bufio.NewScanner(strings.NewReader(string(out)))
	for scanner.Scan() {
		var e map[string]any
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			t.Fatalf("not JSON: %s", scanner.Text())
		}
		if e["type"] == "tool_result" {
			results[e["tool_call_id"].(string)] = e
		}
	}
	if len(results) != 2 {
		t.Fatalf("results %v; stderr: %s", results, stderr.String())
	}
	if results["c1"]["is_error"] != false || results["c1"]["content"] != "HELLO" {
		t.Fatalf("c1: %v", results["c1"])
	}
	if results["c2"]["is_error"] != true || !strings.Contains(results["c2"]["content"].(string), `argument "text"`) {
		t.Fatalf("c2: %v", results["c2"])
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
