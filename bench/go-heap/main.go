// Writes a Go heap profile (runtime/pprof, MemProfileRate = 1) with 600,000 allocation records
// in the runtime's hash order: each is one path of a depth-20 binary recursion (two functions
// calling each other), so every record has its own 22-frame stack (13.8 M frames in all). Run by
// bench/go_heap.sh.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var sink [][]byte

//go:noinline
func a(d, path int) {
	if d == 0 {
		sink = append(sink, make([]byte, 64+path%7*16))
		return
	}
	if path&1 == 0 {
		a(d-1, path>>1)
	} else {
		b(d-1, path>>1)
	}
}

//go:noinline
func b(d, path int) {
	if d == 0 {
		sink = append(sink, make([]byte, 64+path%5*16))
		return
	}
	if path&1 == 0 {
		a(d-1, path>>1)
	} else {
		b(d-1, path>>1)
	}
}

func main() {
	runtime.MemProfileRate = 1
	for i := 0; i < 600000; i++ {
		a(20, i)
		if len(sink) > 1000 {
			sink = sink[:0]
		}
	}
	runtime.GC()
	f, _ := os.Create(os.Args[1])
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
}
