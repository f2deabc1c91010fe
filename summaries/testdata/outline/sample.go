package sample

import (
	"fmt"
	str "strings"
)

// Server serves.
type Server struct {
	Name string
}

type Handler interface {
	Serve() error
}

func (s *Server) Run(n int) error {
	return fmt.Errorf("%s", str.ToUpper(s.Name))
}

func New() *Server { return &Server{} }
