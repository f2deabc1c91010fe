// Package fence makes Markdown code fences that the fenced text cannot
// close. Text from repositories, people and models is fenced in prompts and
// GitHub comments; a fixed ``` would let a file holding its own fence end the
// block early and have the rest read as prose or instructions.
//
// It is pure string handling: no I/O, and nothing of ours is imported.
package fence
