package replay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/issuesmith/issuesmith/replay"
)

// The names SWE-bench Pro's metadata writes for pytest node ids that pytest
// prints otherwise: a parametrised id cut at the first space inside its
// brackets, and "//" collapsed to "/". Each finds the test that ran, and
// only it.
func TestJudgeFindsNodeIDsAsPublicSetsWriteThem(t *testing.T) {
	out := []byte(`tests/unit/misc/test_elf.py::test_find_versions[\x00QtWebEngine/6.4.0 Chrome/102.0.5005.177\x00-expected0] PASSED [ 10%]
tests/unit/misc/test_elf.py::test_find_versions[\x00QtWebEngine/6.4.0 Chrome/102.0.5005.177\x00-expected1] PASSED [ 20%]
tests/unit/misc/test_elf.py::test_find_versions[\x00QtWebEngine/5.15.9 Chrome/87.0.4280.144\x00-expected2] FAILED [ 30%]
tests/unit/utils/test_urlutils.py::test_fuzzy_url[http://example.com] PASSED [ 40%]
tests/unit/utils/test_urlutils.py::test_fuzzy_url[file:///tmp/x] FAILED [ 50%]
tests/unit/utils/test_version.py::test_distribution[a b] PASSED [ 60%]
tests/unit/utils/test_version.py::test_distribution[ab c] FAILED [ 70%]
tests/unit/utils/test_version.py::test_pyqt6_only SKIPPED (needs PyQt 6.7) [ 80%]
tests/unit/utils/test_version.py::test_old PASSED [ 90%]
tests/unit/utils/test_version.py::test_other_env SKIPPED (no D-Bus session) [100%]
`)
	res := replay.ParseResults(out)
	judge := func(f2p, p2p []string) replay.Verdict {
		return replay.Judge(&replay.Instance{FailToPass: f2p, PassToPass: p2p}, res)
	}
	// Cut at the first space: both cases it could be passed.
	v := judge([]string{`tests/unit/misc/test_elf.py::test_find_versions[\x00QtWebEngine/6.4.0`}, nil)
	assert.True(t, v.Resolved, v.Reason())
	// The other cut id names the failing case.
	v = judge([]string{`tests/unit/misc/test_elf.py::test_find_versions[\x00QtWebEngine/5.15.9`}, nil)
	assert.Equal(t, []string{`tests/unit/misc/test_elf.py::test_find_versions[\x00QtWebEngine/5.15.9 (fail)`}, v.Failing)
	// "//" collapsed: each finds its own test.
	v = judge([]string{"tests/unit/utils/test_urlutils.py::test_fuzzy_url[http:/example.com]"},
		[]string{"tests/unit/utils/test_urlutils.py::test_fuzzy_url[file:/tmp/x]"})
	assert.Empty(t, v.Failing)
	assert.Equal(t, []string{"tests/unit/utils/test_urlutils.py::test_fuzzy_url[file:/tmp/x] (fail)"}, v.Broken)
	// "[a" is the start of "[a b]" up to a space, never of "[ab c]".
	v = judge([]string{"tests/unit/utils/test_version.py::test_distribution[a"}, nil)
	assert.True(t, v.Resolved, v.Reason())
	// A name no test fits is not run.
	v = judge([]string{"tests/unit/utils/test_version.py::test_distribution[x"}, nil)
	assert.Equal(t, []string{"tests/unit/utils/test_version.py::test_distribution[x (not run)"}, v.Failing)
}

// A test the environment skipped is said as a skip, with pytest's reason,
// not as a failure of the change; a skipped FAIL_TO_PASS test still leaves
// the instance unresolved, a skipped PASS_TO_PASS test breaks nothing.
func TestJudgeSaysASkipIsNotAFailure(t *testing.T) {
	out := []byte("tests/t.py::test_new SKIPPED (needs PyQt 6.7) [ 50%]\ntests/t.py::test_old PASSED [100%]\n" +
		"=========================== short test summary info ============================\n" +
		"PASSED tests/t.py::test_old\nSKIPPED [1] tests/t.py:9: needs PyQt 6.7\n")
	res := replay.ParseResults(out)
	assert.Equal(t, "skip: needs PyQt 6.7", res["tests/t.py::test_new"])
	v := replay.Judge(&replay.Instance{FailToPass: []string{"tests/t.py::test_new"}, PassToPass: []string{"tests/t.py::test_old"}}, res)
	assert.False(t, v.Resolved)
	assert.Empty(t, v.Failing)
	assert.Equal(t, []string{"tests/t.py::test_new (skipped: needs PyQt 6.7)"}, v.Skipped)
	assert.Contains(t, v.Reason(), "1 skipped by the environment, not failed")

	v = replay.Judge(&replay.Instance{FailToPass: []string{"tests/t.py::test_old"}, PassToPass: []string{"tests/t.py::test_new"}}, res)
	assert.True(t, v.Resolved, v.Reason())
	assert.Empty(t, v.Broken)
	assert.Contains(t, v.Reason(), "skipped by the environment")
}

// pytest 7 prints no reason on a -v SKIPPED line; -rA names it by file and
// line: a file whose skips had one reason gives it to each of its skips.
func TestJudgeTakesASkipsReasonFromTheSummary(t *testing.T) {
	out := []byte("tests/a.py::test_x SKIPPED [ 33%]\ntests/a.py::test_y SKIPPED [ 66%]\ntests/b.py::test_z SKIPPED [100%]\n" +
		"SKIPPED [2] tests/a.py:3: adblock not installed\nSKIPPED [1] tests/b.py:5: one\nSKIPPED [1] tests/b.py:9: two\n")
	res := replay.ParseResults(out)
	assert.Equal(t, map[string]string{"tests/a.py::test_x": "skip: adblock not installed",
		"tests/a.py::test_y": "skip: adblock not installed", "tests/b.py::test_z": "skip"}, res)
}
