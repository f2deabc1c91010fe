package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/internal/buildinfo"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go version this binary was built from",
		Long: "Print what the binary knows about its build: the module version (a tag for go install …@vX, " +
			"a pseudo-version or (devel) for a checkout), the VCS revision with a note when the tree had " +
			"uncommitted changes, and the Go version. Same as bot --version.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), buildinfo.Read())
			return err
		},
	}
}
