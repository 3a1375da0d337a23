package human

import "testing"

func TestQuotedName(t *testing.T) {
	for name, want := range map[string]string{
		"s3://b/logs/app-1":   "s3://b/logs/app-1",
		"logs/app 2 ü":        "logs/app 2 ü",
		"logs/a\nb":           `"logs/a\nb"`,
		"logs/\x1b[31mred":    `"logs/\x1b[31mred"`,
		"logs/\xe9t\xe9.json": `"logs/\xe9t\xe9.json"`,
	} {
		if got := QuotedName(name); got != want {
			t.Errorf("QuotedName(%q) = %s, want %s", name, got, want)
		}
	}
}
