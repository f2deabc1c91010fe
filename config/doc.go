// Package config owns issuesmith's two configurations: the server's (Server:
// App credentials, webhook secret, database, listen address, model settings),
// parsed once at start-up from ISSUESMITH_* environment variables and an
// optional file, defaulted and validated; and a repository's versioned
// .github/issuesmith.yml (Repo), decoded strictly so that a wrong key is an
// error naming the key and its line.
//
// Nothing else in issuesmith reads the environment. config never fetches
// anything from GitHub or the network, and never prints a secret: Server
// redacts keys, secrets and API keys in String and LogValue.
package config
