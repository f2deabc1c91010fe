// Package fakeapi is what the forges' fake servers (ghapp/ghtest,
// gitea/giteatest) share: routing a request by the forge's own OpenAPI
// description, checking the request and the fake's own answer against it
// (a request body's properties the operation does not define fail too: the
// forges ignore them, in our code they are a bug), and the Bell a test's
// Wait listens to after each request a fake served.
//
// Each fake loads its forge's description itself (GitHub's is OpenAPI 3,
// Gitea's a converted swagger 2.0). It is linked only into the fakes and
// what runs them (tests, bot try); it never serves or calls anything.
package fakeapi
