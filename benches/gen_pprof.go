// Deterministic generator of a large pprof CPU profile shaped like the ones
// Go's runtime/pprof writes, scaled up. Used by benches/pprof_vs_go.sh; the
// output is never committed.
//
//	go run benches/gen_pprof.go -o /tmp/big.pb -gz /tmp/big.pb.gz
//	go run benches/gen_pprof.go -o /tmp/small.pb -size 20000000 -functions 20000 -locations 50000
//
// Standard library only: the protobuf wire format is written by hand, field
// numbers from https://github.com/google/pprof/blob/main/proto/profile.proto.
//
// What is taken from real profiles (tests/fixtures/pprof/go-demo/1.0/
// demo.cpu.pb.gz, written by Go's runtime/pprof, and the corpus's
// speedscope/pprof/simple.prof):
//   - the header: time_nanos, sample types samples/count and cpu/nanoseconds,
//     duration_nanos, period_type cpu/nanoseconds, period 10 ms;
//   - the record order of Go's profile builder: each sample is preceded by the
//     locations (and their functions) it is the first to use, so samples,
//     locations and functions interleave; mappings and the string table come
//     last;
//   - a sample writes its values (field 2) before its location ids (field 1),
//     both packed, then its labels (field 3, pprof.Do style string labels);
//   - a location writes id, address, lines, mapping id; about 11% of
//     locations have two lines and 2% three (inlined calls, innermost first),
//     as in the demo; functions carry name, system name, file name and start
//     line; a mapping for the executable and one for libc (cgo frames:
//     locations with an address and no lines).
//
// Scaled: -functions functions (default 200,000) in realistic Go packages,
// -locations locations (default 500,000), a call graph where popular helpers
// are called from everywhere, distinct stacks made by branching off earlier
// stacks (shared prefixes, depth 10..60) and samples split by labels
// (handler, tenant) up to -size bytes uncompressed (default 1e9). Samples are
// written in a shuffled order, as Go's hash-map iteration does.
//
// Same arguments -> byte-identical output (own PRNG, no map iteration).
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// ---------------------------------------------------------------- PRNG

type rng struct{ s uint64 }

// splitmix64: small, fast, and the same on every Go version.
func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// geometric with the given mean (>= 1 when mean >= 1).
func (r *rng) geometric(mean float64) int {
	p := 1 / mean
	n := 1
	for r.float() > p && n < 1000 {
		n++
	}
	return n
}

// zipfIndex: index in [0, n) skewed towards 0.
func (r *rng) zipfIndex(n int) int {
	u := r.float()
	return int(float64(n) * u * u * u)
}

// ---------------------------------------------------------------- protobuf

type buf []byte

func (b *buf) varint(v uint64) {
	for v >= 0x80 {
		*b = append(*b, byte(v)|0x80)
		v >>= 7
	}
	*b = append(*b, byte(v))
}

func (b *buf) tag(field, wire int) { b.varint(uint64(field<<3 | wire)) }

func (b *buf) uint(field int, v uint64) {
	if v != 0 {
		b.tag(field, 0)
		b.varint(v)
	}
}

func (b *buf) int(field int, v int64) { b.uint(field, uint64(v)) }

func (b *buf) bytes(field int, v []byte) {
	b.tag(field, 2)
	b.varint(uint64(len(v)))
	*b = append(*b, v...)
}

func (b *buf) packed(field int, vs []uint64) {
	var inner buf
	for _, v := range vs {
		inner.varint(v)
	}
	b.bytes(field, inner)
}

// ---------------------------------------------------------------- program

var (
	orgs   = []string{"github.com/acme", "github.com/northwind", "go.etcd.io", "google.golang.org", "github.com/cockroachdb", "k8s.io", "github.com/prometheus", "gitlab.com/orbit"}
	repos  = []string{"ingest", "gateway", "storage", "scheduler", "billing", "search", "auth", "pebble", "client-go", "grpc", "telemetry", "ledger"}
	dirs   = []string{"pkg", "internal", "cmd", "pkg/util", "pkg/kv", "pkg/sql"}
	pkgs   = []string{"queue", "store", "cache", "codec", "rpc", "wal", "index", "raft", "txn", "batch", "httpx", "encoding", "merge", "compact", "exec", "plan", "metrics"}
	stdlib = []string{"runtime", "net/http", "encoding/json", "sync", "bufio", "io", "os", "syscall", "compress/gzip", "crypto/tls", "sort", "strings", "bytes", "reflect", "time", "internal/poll", "context", "net"}
	verbs  = []string{"get", "put", "read", "write", "handle", "process", "parse", "encode", "decode", "flush", "poll", "run", "apply", "merge", "compact", "visit", "resolve", "lookup", "insert", "scan", "build", "emit", "dispatch", "serve", "fetch", "commit", "load"}
	nouns  = []string{"Batch", "Request", "Record", "Entry", "Block", "Frame", "Segment", "Page", "Txn", "Key", "Value", "Node", "Conn", "Stream", "Header", "Buffer", "Index", "Plan", "Row", "Span"}
	roots  = []string{"runtime.goexit", "runtime.main", "runtime.mcall", "runtime.mstart", "runtime.bgsweep", "runtime.gcBgMarkWorker", "runtime.morestack", "runtime.sigtramp"}
)

type function struct {
	name, file string
	startLine  int64
	firstLoc   int // index of its first location
	locs       int // number of its locations (pcs)
	callees    []int32
}

type location struct {
	fn      int32   // owning function, -1 for a libc address
	inlined []int32 // functions inlined at this pc, innermost first
	inLines []int64 // their lines
	line    int64
	address uint64
}

type program struct {
	fns     []function
	locs    []location
	libc    []int // locations in libc (no lines)
	entries []int32
	helpers []int32
}

// Function numbers: the roots, then entry points (handlers in the
// application), then popular helpers (the standard library: allocation,
// maps, copying, hashing), then everything else.
const (
	firstEntry  = 8
	firstHelper = firstEntry + 200
	helperCount = 2000
)

func capitalize(s string) string { return string(s[0]-32) + s[1:] }

func makeProgram(r *rng, nfn, nloc int) *program {
	p := &program{}
	// Packages: the standard library, and one application package for about
	// 60 functions.
	packages := append([]string(nil), stdlib...)
	for len(packages) < nfn/60+len(stdlib) {
		path := fmt.Sprintf("%s/%s/%s/%s", orgs[r.intn(len(orgs))], repos[r.intn(len(repos))], dirs[r.intn(len(dirs))], pkgs[r.intn(len(pkgs))])
		if len(packages)%3 == 0 {
			path += fmt.Sprintf("%d", len(packages))
		}
		packages = append(packages, path)
	}
	seen := map[string]bool{}
	for i := 0; i < nfn; i++ {
		name, file := roots[i%len(roots)], "runtime/proc.go"
		if i >= len(roots) {
			pi := len(stdlib) + r.intn(len(packages)-len(stdlib))
			if i >= firstHelper && i < firstHelper+helperCount {
				pi = r.intn(len(stdlib))
			}
			name, file = functionName(r, packages[pi], i < firstHelper)
		}
		for seen[name] {
			name += fmt.Sprintf(".func%d", 1+r.intn(9))
		}
		seen[name] = true
		p.fns = append(p.fns, function{name: name, file: file, startLine: int64(10 + r.intn(3000))})
	}
	p.makeLocations(r, nloc)
	// Call graph: a third of the calls go to popular helpers, the rest
	// anywhere.
	for i := firstEntry; i < firstHelper && i < nfn; i++ {
		p.entries = append(p.entries, int32(i))
	}
	for i := firstHelper; i < firstHelper+helperCount && i < nfn; i++ {
		p.helpers = append(p.helpers, int32(i))
	}
	for i := range p.fns {
		n := 1 + r.geometric(3)
		for j := 0; j < n; j++ {
			callee := int32(firstEntry + r.intn(nfn-firstEntry))
			if r.intn(3) == 0 {
				callee = p.helpers[r.zipfIndex(len(p.helpers))]
			}
			p.fns[i].callees = append(p.fns[i].callees, callee)
		}
	}
	return p
}

func functionName(r *rng, pk string, entry bool) (name, file string) {
	base := pk[strings.LastIndexByte(pk, '/')+1:]
	verb, noun := verbs[r.intn(len(verbs))], nouns[r.intn(len(nouns))]
	switch {
	case entry:
		name = fmt.Sprintf("%s.(*%sHandler).ServeHTTP", pk, noun)
	case r.intn(4) == 0:
		name = fmt.Sprintf("%s.%s%s", pk, verb, noun)
	case r.intn(3) == 0:
		name = fmt.Sprintf("%s.(*%s).%s", pk, noun, capitalize(verb))
	case r.intn(2) == 0:
		name = fmt.Sprintf("%s.%s.%s%s", pk, noun, capitalize(verb), nouns[r.intn(len(nouns))])
	default:
		name = fmt.Sprintf("%s.%s%s.func%d", pk, verb, noun, 1+r.intn(4))
	}
	file = fmt.Sprintf("%s/%s_%s.go", pk, base, verbs[r.intn(len(verbs))])
	if !strings.Contains(pk, ".") {
		file = pk + "/" + base + ".go" // standard library
	}
	return name, file
}

// makeLocations: at least one pc per function; most of the rest go to the
// helpers, whose hot loops have many pcs. Consecutive pcs of a function
// share a source line (1 to 8 pcs a line); about 11% of the lines hold one
// inlined call and 2% two, as in the demo profile.
func (p *program) makeLocations(r *rng, nloc int) {
	nfn := len(p.fns)
	counts := make([]int, nfn)
	for i := range counts {
		counts[i] = 1
	}
	libcLocs := nloc / 500
	for extra := nloc - nfn - libcLocs; extra > 0; extra-- {
		if r.intn(5) < 3 {
			counts[firstHelper+r.zipfIndex(helperCount)]++
		} else {
			counts[r.zipfIndex(nfn)]++
		}
	}
	address := uint64(0x401000)
	for i := range p.fns {
		f := &p.fns[i]
		f.firstLoc, f.locs = len(p.locs), counts[i]
		var loc location
		pcsPerLine := 1 + r.intn(8)
		for j := 0; j < counts[i]; j++ {
			address += uint64(1 + r.intn(12))
			if j%pcsPerLine == 0 {
				loc = location{fn: int32(i), line: f.startLine + int64(1+j/pcsPerLine+r.intn(3))}
				switch x := r.intn(100); {
				case x < 2:
					loc.inlined = []int32{int32(r.intn(nfn)), int32(r.intn(nfn))}
				case x < 13:
					loc.inlined = []int32{int32(r.intn(nfn))}
				}
				for _, g := range loc.inlined {
					loc.inLines = append(loc.inLines, p.fns[g].startLine+int64(1+r.intn(20)))
				}
			}
			loc.address = address
			p.locs = append(p.locs, loc)
		}
		address += 0x40
	}
	libcAddress := uint64(0x7f3a_1c02_8000)
	for i := 0; i < libcLocs; i++ {
		libcAddress += uint64(16 + r.intn(400))
		p.libc = append(p.libc, len(p.locs))
		p.locs = append(p.locs, location{fn: -1, address: libcAddress})
	}
}

// ---------------------------------------------------------------- stacks

func hash2(a, b uint64) uint64 {
	r := rng{a*0x9e3779b97f4a7c15 ^ b}
	return r.next()
}

// A call path, root first, as functions. A caller's pc is the call site of
// its callee; the leaf's pc varies from sample to sample.
type path []int32

func (p *program) walk(r *rng, s path, depth int) path {
	for len(s) < depth {
		cur := p.fns[s[len(s)-1]]
		next := cur.callees[r.zipfIndex(len(cur.callees))]
		if len(s) == depth-1 && r.intn(10) < 6 {
			// Most CPU time is spent in the helpers.
			next = p.helpers[r.zipfIndex(len(p.helpers))]
		}
		s = append(s, next)
	}
	return s
}

func (p *program) freshPath(r *rng) path {
	s := path{int32(r.intn(len(roots))), p.entries[r.zipfIndex(len(p.entries))]}
	return p.walk(r, s, 10+r.intn(51))
}

// makePaths: distinct call paths of depth 10..60; most branch off an
// earlier one a few frames above its leaf, so prefixes are shared as in
// real programs.
func (p *program) makePaths(r *rng, n int) []path {
	paths := make([]path, 0, n)
	for len(paths) < n {
		if len(paths) == 0 || r.intn(50) == 0 {
			paths = append(paths, p.freshPath(r))
			continue
		}
		parent := paths[len(paths)-1-r.zipfIndex(len(paths))]
		keep := len(parent) - r.geometric(4)
		if keep < 2 {
			keep = 2
		}
		// As many frames added as dropped on average: depths stay spread
		// over 10..60 instead of drifting to one end.
		depth := keep + r.geometric(4)
		if depth < 10 {
			depth = 10
		}
		if depth > 60 {
			depth = 60
		}
		if keep >= depth {
			keep = depth - 1
		}
		s := append(path(nil), parent[:keep]...)
		paths = append(paths, p.walk(r, s, depth))
	}
	return paths
}

// leafPcs: how many distinct leaf pcs path i can have (its samples).
func (p *program) leafPcs(s path, i int) int {
	if i%100 == 7 {
		return 4 // a cgo call ending in libc
	}
	return p.fns[s[len(s)-1]].locs
}

// locationIDs: the 1-based location ids of sample `variant` of path i,
// leaf first. Its leaf pc is the variant-th pc after a start that depends
// on the path, so the samples of a path have distinct stacks.
func (p *program) locationIDs(s path, i, variant int, out []uint64) []uint64 {
	out = out[:0]
	n := len(s)
	start := hash2(uint64(i), 1)
	if i%100 == 7 {
		out = append(out, uint64(p.libc[int((start+uint64(variant))%uint64(len(p.libc)))]+1))
	}
	for k := n - 1; k >= 0; k-- {
		f := p.fns[s[k]]
		pc := start + uint64(variant)
		if k < n-1 {
			pc = hash2(uint64(s[k]), uint64(s[k+1]))
		}
		out = append(out, uint64(f.firstLoc+int(pc%uint64(f.locs))+1))
	}
	return out
}

// ---------------------------------------------------------------- writer

type writer struct {
	out       io.Writer
	strings   map[string]int64
	table     []string
	locDone   []bool
	fnDone    []bool
	written   int64
	scratch   buf
	p         *program
	libcIndex int64
}

func (w *writer) str(s string) int64 {
	if i, ok := w.strings[s]; ok {
		return i
	}
	w.strings[s] = int64(len(w.table))
	w.table = append(w.table, s)
	return int64(len(w.table) - 1)
}

func (w *writer) emit(field int, msg buf) {
	w.scratch = w.scratch[:0]
	w.scratch.bytes(field, msg)
	n, err := w.out.Write(w.scratch)
	check(err)
	w.written += int64(n)
}

func (w *writer) emitScalar(field int, v uint64) {
	w.scratch = w.scratch[:0]
	w.scratch.uint(field, v)
	n, err := w.out.Write(w.scratch)
	check(err)
	w.written += int64(n)
}

func (w *writer) function(i int32) {
	if w.fnDone[i] {
		return
	}
	w.fnDone[i] = true
	f := w.p.fns[i]
	var m buf
	m.uint(1, uint64(i)+1)
	name := w.str(f.name)
	m.int(2, name)
	m.int(3, name)
	m.int(4, w.str(f.file))
	m.int(5, f.startLine)
	w.emit(5, m)
}

func (w *writer) location(id uint64) {
	if w.locDone[id-1] {
		return
	}
	w.locDone[id-1] = true
	loc := w.p.locs[id-1]
	var m buf
	m.uint(1, id)
	m.uint(3, loc.address)
	if loc.fn >= 0 {
		for k, g := range loc.inlined {
			var l buf
			l.uint(1, uint64(g)+1)
			l.int(2, loc.inLines[k])
			m.bytes(4, l)
		}
		var l buf
		l.uint(1, uint64(loc.fn)+1)
		l.int(2, loc.line)
		m.bytes(4, l)
		m.uint(2, 1)
	} else {
		m.uint(2, 2)
	}
	w.emit(4, m)
	// Go's profile builder writes a location, then the functions it is the
	// first to use.
	if loc.fn >= 0 {
		for _, g := range loc.inlined {
			w.function(g)
		}
		w.function(loc.fn)
	}
}

type sampleRef struct {
	path, variant int32
}

func main() {
	out := flag.String("o", "", "raw profile.proto output (required)")
	gz := flag.String("gz", "", "also write this gzip-compressed copy")
	size := flag.Int64("size", 1_000_000_000, "target uncompressed size in bytes")
	nfn := flag.Int("functions", 200_000, "distinct functions")
	nloc := flag.Int("locations", 500_000, "distinct locations")
	npaths := flag.Int("paths", 0, "distinct call paths (default: size/1500)")
	seed := flag.Uint64("seed", 8, "PRNG seed")
	labels := flag.Bool("labels", false, "label every sample with handler and tenant (pprof.Do style); go tool pprof needs about twice the memory and ten times the time for labelled samples")
	flag.Parse()
	if *out == "" || *nfn <= firstHelper+helperCount || *nloc < *nfn+*nloc/500 {
		flag.Usage()
		os.Exit(2)
	}
	if *npaths == 0 {
		*npaths = int(*size / 1500)
	}
	r := &rng{*seed}
	p := makeProgram(r, *nfn, *nloc)
	paths := p.makePaths(r, *npaths)
	refs := p.chooseSamples(r, paths, *size)

	f, err := os.Create(*out + ".tmp")
	check(err)
	bw := bufio.NewWriterSize(f, 1<<20)
	w := &writer{out: bw, strings: map[string]int64{}, locDone: make([]bool, len(p.locs)), fnDone: make([]bool, len(p.fns)), p: p}
	w.str("")
	// Duration: the CPU time (about two 10 ms samples per record) spread
	// over 32 cores.
	writeHeader(w, int64(len(refs))*20_000_000/32)
	var handlers, tenantNames []int64
	var handlerKey, tenantKey int64
	if *labels {
		for i := 0; i < 64; i++ {
			handlers = append(handlers, w.str(fmt.Sprintf("/api/v%d/%s%s", 1+i%3, verbs[i%len(verbs)], nouns[i%len(nouns)])))
		}
		for i := 0; i < tenants; i++ {
			tenantNames = append(tenantNames, w.str(fmt.Sprintf("tenant-%04d", i)))
		}
		handlerKey, tenantKey = w.str("handler"), w.str("tenant")
	}
	var total uint64
	var ids []uint64
	for _, ref := range refs {
		s := paths[ref.path]
		ids = p.locationIDs(s, int(ref.path), int(ref.variant), ids)
		for _, id := range ids {
			w.location(id)
		}
		count := uint64(r.geometric(2))
		total += count
		var m buf
		m.packed(2, []uint64{count, count * 10_000_000})
		m.packed(1, ids)
		if *labels {
			var l buf
			l.int(1, handlerKey)
			l.int(2, handlers[hash2(uint64(s[1]), 3)%uint64(len(handlers))])
			m.bytes(3, l)
			l = l[:0]
			l.int(1, tenantKey)
			l.int(2, tenantNames[hash2(uint64(ref.path), uint64(ref.variant))%tenants])
			m.bytes(3, l)
		}
		w.emit(2, m)
	}
	writeMappings(w)
	for _, s := range w.table {
		w.emit(6, buf(s))
	}
	check(bw.Flush())
	check(f.Close())
	check(os.Rename(*out+".tmp", *out))
	fmt.Fprintf(os.Stderr, "%s: %d bytes, %d samples (%d cpu samples), %d distinct call paths, %d functions, %d locations, %d strings\n",
		*out, w.written, len(refs), total, len(paths), len(p.fns), len(p.locs), len(w.table))
	if *gz != "" {
		writeGzip(*out, *gz)
	}
}

// chooseSamples: how many samples each path gets (heavy-tailed, at most
// its number of leaf pcs so no two samples have the same stack), scaled so
// the file reaches about `size` bytes, in a shuffled order as Go's map
// iteration writes them. A sample costs its location ids and about 12
// bytes; the dictionaries about 50 bytes per location.
func (p *program) chooseSamples(r *rng, paths []path, size int64) []sampleRef {
	weights := make([]float64, len(paths))
	pathBytes := make([]float64, len(paths))
	var ids []uint64
	for i, s := range paths {
		u := r.float()
		weights[i] = 1 + 30*u*u*u*u
		ids = p.locationIDs(s, i, 0, ids)
		var b buf
		b.packed(1, ids)
		pathBytes[i] = float64(len(b)) + 12
	}
	samples := func(i int, k float64) int {
		n := int(weights[i]*k + 0.5)
		if n < 1 {
			n = 1
		}
		if max := p.leafPcs(paths[i], i); n > max {
			n = max
		}
		return n
	}
	budget := float64(size) - 50*float64(len(p.locs))
	lo, hi := 0.0, 1e6
	for k := 0; k < 60; k++ {
		mid := (lo + hi) / 2
		total := 0.0
		for i := range paths {
			total += float64(samples(i, mid)) * pathBytes[i]
		}
		if total < budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	var refs []sampleRef
	for i := range paths {
		for v := 0; v < samples(i, lo); v++ {
			refs = append(refs, sampleRef{int32(i), int32(v)})
		}
	}
	for i := len(refs) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		refs[i], refs[j] = refs[j], refs[i]
	}
	return refs
}

const tenants = 1000

func samplesOf(weight, k float64) int {
	n := int(weight*k + 0.5)
	if n < 1 {
		n = 1
	}
	if n > tenants {
		n = tenants
	}
	return n
}

func writeHeader(w *writer, duration int64) {
	w.emitScalar(9, 1_790_000_000_000_000_000) // time_nanos
	for _, t := range [][2]string{{"samples", "count"}, {"cpu", "nanoseconds"}} {
		var vt buf
		vt.int(1, w.str(t[0]))
		vt.int(2, w.str(t[1]))
		w.emit(1, vt)
	}
	w.emitScalar(10, uint64(duration)) // duration_nanos
	var pt buf
	pt.int(1, w.str("cpu"))
	pt.int(2, w.str("nanoseconds"))
	w.emit(11, pt)
	w.emitScalar(12, 10_000_000) // period
}

func writeMappings(w *writer) {
	type mapping struct {
		start, limit, offset uint64
		file, buildID        string
		functions            bool
	}
	last := w.p.locs[len(w.p.locs)-1].address
	maps := []mapping{
		{0x400000, 0x400000 + ((w.p.locs[w.p.libc[0]-1].address+0xfff)&^0xfff - 0x400000), 0, "/usr/local/bin/server", "5ec3a1e7b27d3c1f9b2c", true},
		{0x7f3a_1c00_0000, (last + 0x1fff) &^ 0xfff, 0x28000, "/lib/x86_64-linux-gnu/libc.so.6", "a43bfc8428df6623cd49", false},
	}
	for i, m := range maps {
		var b buf
		b.uint(1, uint64(i)+1)
		b.uint(2, m.start)
		b.uint(3, m.limit)
		b.uint(4, m.offset)
		b.int(5, w.str(m.file))
		b.int(6, w.str(m.buildID))
		if m.functions {
			b.uint(7, 1)
			b.uint(8, 1)
			b.uint(9, 1)
			b.uint(10, 1)
		}
		w.emit(3, b)
	}
}

func writeGzip(raw, gz string) {
	in, err := os.Open(raw)
	check(err)
	defer in.Close()
	f, err := os.Create(gz + ".tmp")
	check(err)
	// runtime/pprof compresses with gzip.BestSpeed too.
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	check(err)
	_, err = io.Copy(zw, bufio.NewReaderSize(in, 1<<20))
	check(err)
	check(zw.Close())
	check(f.Close())
	check(os.Rename(gz+".tmp", gz))
	st, err := os.Stat(gz)
	check(err)
	fmt.Fprintf(os.Stderr, "%s: %d bytes\n", gz, st.Size())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
