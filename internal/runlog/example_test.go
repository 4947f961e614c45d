package runlog_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hees-dev/hees/internal/runlog"
	"github.com/hees-dev/hees/linalg"
)

// A log of one generation of two points in two dimensions.
func ExampleOpenLog() {
	dir, err := os.MkdirTemp("", "runlog")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "log.csv")
	log, err := runlog.OpenLog(path, 2, []runlog.Field{{Name: "strategy", Value: "hees"}, {Name: "d", Value: "2"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := linalg.NewDense(2, 2, []float64{0.5, -1, 2, 0})
	if err := log.Generation(1, 0, x, []float64{1.25, 4}, nil); err != nil {
		fmt.Println(err)
	}
	log.Close()
	data, _ := os.ReadFile(path)
	fmt.Print(string(data))
	// Output:
	// # strategy: hees
	// # d: 2
	// evaluation,generation,row,status,f,x1,x2
	// 1,0,0,ok,1.25,0.5,-1
	// 2,0,1,ok,4,2,0
}
