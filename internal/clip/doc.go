// Package clip cuts text to a byte budget without splitting a UTF-8
// character, and marks the cut. Text cut this way goes into prompts, GitHub
// comments and logs, where half a character is invalid UTF-8.
//
// It is pure string handling: no I/O, and nothing of ours is imported.
package clip
