package webhook

import (
	"testing"
)

// FuzzSignature: a signature verifies its own body and secret only.
func FuzzSignature(f *testing.F) {
	f.Add([]byte("secret"), []byte(`{"action":"labeled"}`), byte(1))
	f.Fuzz(func(t *testing.T, secret, body []byte, flip byte) {
		if len(secret) == 0 {
			return
		}
		sig := Sign(secret, body)
		if !ValidSignature(secret, body, sig) {
			t.Fatal("own signature refused")
		}
		other := append([]byte(nil), body...)
		other = append(other, flip)
		if ValidSignature(secret, other, sig) {
			t.Fatal("signature accepted for another body")
		}
		// Change a byte of the secret (appending zero bytes would not:
		// HMAC pads short keys with zeros).
		changed := append([]byte(nil), secret...)
		changed[0] ^= flip | 1
		if ValidSignature(changed, body, sig) {
			t.Fatal("signature accepted under another secret")
		}
	})
}
