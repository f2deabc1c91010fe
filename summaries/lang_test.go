package summaries

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPathClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path                 string
		lang                 Language
		code, test, aux, ven bool
	}{
		{"src/pkg/server.go", LangGo, true, false, false, false},
		{"src/pkg/server_test.go", LangGo, true, true, false, false},
		{"tests/unit/helpers.py", LangPython, true, true, false, false},
		{"pkg/test_models.py", LangPython, true, true, false, false},
		{"conftest.py", LangPython, true, true, false, false},
		{"web/button.test.tsx", LangTSX, true, true, false, false},
		{"src/main/java/FooTest.java", LangJava, true, true, false, false},
		{"src/main/java/Contest.java", LangJava, true, false, false, false},
		{"docs/conf.py", LangPython, true, false, true, false},
		{"examples/basic/main.rs", LangRust, true, false, true, false},
		{"vendor/x/y.go", LangGo, true, false, false, true},
		{"lib/tool.rb", LangOther, true, false, false, false},
		{"README.md", LangOther, false, false, false, false},
		{"include/a.HPP", LangCPP, true, false, false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.lang, LanguageOf(tt.path), tt.path)
		assert.Equal(t, tt.code, IsCode(tt.path), "IsCode %s", tt.path)
		assert.Equal(t, tt.test, IsTest(tt.path), "IsTest %s", tt.path)
		assert.Equal(t, tt.aux, auxiliary(tt.path), "auxiliary %s", tt.path)
		assert.Equal(t, tt.ven, vendored(tt.path), "vendored %s", tt.path)
	}
}
