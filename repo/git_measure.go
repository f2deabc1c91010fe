package repo

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// heapMetric is the live Go heap, sampled while go-git works.
const heapMetric = "/memory/classes/heap/objects:bytes"

// measurePeakHeap runs fn and returns how far the Go heap grew above its
// size at the start, at its highest, sampled every 10ms. The figure is
// process-wide: concurrent work in the same process counts too. When limit
// is not 0 and the growth passes it, over is called once (fn keeps running
// until it notices, e.g. through a cancelled context).
func measurePeakHeap(limit uint64, over func(), fn func() error) (uint64, error) {
	var peak, base atomic.Uint64
	var called atomic.Bool
	sample := func() {
		s := []metrics.Sample{{Name: heapMetric}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		v := s[0].Value.Uint64()
		if v > peak.Load() {
			peak.Store(v)
		}
		if b := base.Load(); limit > 0 && b > 0 && v > b && v-b > limit && !called.Swap(true) {
			over()
		}
	}
	// Collect first so the base is the live heap, not garbage that a GC
	// during fn would free and hide fn's growth behind; syncs are rare
	// enough for one forced collection each.
	runtime.GC()
	sample()
	base.Store(peak.Load())
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() { // sampler; ends when fn returns
		defer close(stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	err := fn()
	sample()
	close(done)
	<-stopped
	return peak.Load() - base.Load(), err
}
