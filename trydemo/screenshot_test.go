package trydemo

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Headless Chromium (Debian package chromium) renders the page of a real
// run to a PNG: the picture has the page's size and shows the scripted
// notice's yellow and the diff's added (green) and removed (red) lines, so
// a browser drew the styled page, not an error or a blank one. Skipped
// without chromium unless ISSUESMITH_REQUIRE_CHROMIUM=1 (CI);
// ISSUESMITH_TRY_SCREENSHOT=FILE keeps the PNG.
func TestScreenshotInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("ISSUESMITH_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium is not installed (Debian: apt-get install chromium)")
		}
		t.Skip("chromium is not installed")
	}
	res, err := Run(t.Context(), Options{Dir: t.TempDir()})
	require.NoError(t, err)
	page, err := Render(res)
	require.NoError(t, err)
	dir := t.TempDir()
	html, shot := filepath.Join(dir, "try.html"), filepath.Join(dir, "try.png")
	if keep := os.Getenv("ISSUESMITH_TRY_SCREENSHOT"); keep != "" {
		shot = keep
	}
	require.NoError(t, os.WriteFile(html, page, 0o600))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const w, h = 1280, 4800
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-dev-shm-usage",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1280,4800",
		"--screenshot="+shot, "file://"+html)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, w, h), img.Bounds())
	seen := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}]++
		}
	}
	require.Greater(t, len(seen), 50, "a page of text has many shades")
	for name, c := range map[string]color.RGBA{
		"the scripted notice": {0xff, 0xf8, 0xc5, 255},
		"an added line":       {0xda, 0xfb, 0xe1, 255},
		"a removed line":      {0xff, 0xeb, 0xe9, 255},
	} {
		require.Greater(t, seen[c], 200, "the screenshot shows %s (%v)", name, c)
	}
}
