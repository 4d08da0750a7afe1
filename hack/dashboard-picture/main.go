// Command dashboard-picture scrapes a running provider's /metrics (`make
// run` prints where) for a while and draws, for each panel of the Grafana
// dashboard (internal/dashboard), the metrics its queries read as the
// provider exported them: one line per label set, counters (…_total) as
// per-second rates and timestamps (…_timestamp_seconds) as the time since,
// as the dashboard's queries take them. It is how
// docs/OPERATING.md shows what the dashboard looks like without Grafana.
//
//	go run ./hack/dashboard-picture -metrics http://127.0.0.1:PORT/metrics -for 10m -out docs/images/dashboard.png
package main

import (
	"cmp"
	"flag"
	"fmt"
	"image/color"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/crossplane-contrib/provider-foundationdb/internal/dashboard"
)

// maxLines is the most lines a panel draws: those that reach the highest.
const maxLines = 6

func main() {
	url := flag.String("metrics", "", "the provider's metrics URL, e.g. http://127.0.0.1:8080/metrics")
	span := flag.Duration("for", 10*time.Minute, "how long to scrape")
	every := flag.Duration("every", 10*time.Second, "how often to scrape")
	out := flag.String("out", "dashboard.png", "the PNG file to write")
	columns := flag.Int("columns", 4, "panels per row")
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "dashboard-picture: -metrics is required")
		os.Exit(2)
	}
	if err := run(*url, *span, *every, *out, *columns); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard-picture:", err)
		os.Exit(1)
	}
}

func run(url string, span, every time.Duration, out string, columns int) error {
	d, err := dashboard.Build()
	if err != nil {
		return err
	}
	rec := recording{series: map[string]map[string]plotter.XYs{}}
	start := time.Now()
	for at := start; time.Since(start) <= span; at = at.Add(every) {
		time.Sleep(time.Until(at))
		families, err := scrape(url)
		if err != nil && len(rec.series) > 0 {
			fmt.Fprintf(os.Stderr, "dashboard-picture: %v; drawing what was scraped\n", err)
			break
		}
		if err != nil {
			return err
		}
		rec.add(time.Since(start).Seconds(), float64(time.Now().UnixNano())/1e9, families)
	}
	var plots []*plot.Plot
	for _, p := range dashboard.Panels(d) {
		plots = append(plots, rec.plot(p))
	}
	return write(plots, columns, out)
}

// scrape reads the metric families url serves.
func scrape(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url) //nolint:gosec,noctx // a URL the user gives, scraped as Prometheus would
	if err != nil {
		return nil, fmt.Errorf("cannot scrape %s: %w", url, err)
	}
	defer resp.Body.Close() //nolint:errcheck // read to the end
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the metrics of %s: %w", url, err)
	}
	return families, nil
}

// A recording is the samples scraped, by metric name and label set.
type recording struct {
	series map[string]map[string]plotter.XYs
}

// add records the samples of a scrape t seconds into the recording, at
// wall-clock time now (in seconds): a timestamp's as the time since it.
func (r *recording) add(t, now float64, families map[string]*dto.MetricFamily) {
	for name, f := range families {
		for _, m := range f.GetMetric() {
			v, ok := value(m)
			if !ok {
				continue
			}
			if strings.HasSuffix(name, "_timestamp_seconds") {
				v = now - v
			}
			if r.series[name] == nil {
				r.series[name] = map[string]plotter.XYs{}
			}
			key := labels(m)
			r.series[name][key] = append(r.series[name][key], plotter.XY{X: t, Y: v})
		}
	}
}

// value is a gauge's or a counter's value.
func value(m *dto.Metric) (float64, bool) {
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue(), true
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue(), true
	}
	return 0, false
}

// labels names a label set by its values, the database's first.
func labels(m *dto.Metric) string {
	var db, rest []string
	for _, l := range m.GetLabel() {
		switch l.GetName() {
		case "namespace", "cluster":
			db = append(db, l.GetValue())
		default:
			rest = append(rest, l.GetName()+"="+l.GetValue())
		}
	}
	return strings.TrimSpace(strings.Join(db, "/") + " " + strings.Join(rest, " "))
}

// plot draws panel p: the lines of the metrics its queries read.
func (r *recording) plot(p dashboard.Panel) *plot.Plot {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = "seconds"
	pl.Legend.Top, pl.Legend.Left = true, true
	type line struct {
		name string
		xys  plotter.XYs
		peak float64
	}
	var lines []line
	seen := map[string]bool{}
	for _, e := range p.Exprs {
		for _, name := range dashboard.MetricNames(e) {
			if seen[name] {
				continue
			}
			seen[name] = true
			for _, key := range slices.Sorted(maps.Keys(r.series[name])) {
				xys := r.series[name][key]
				switch {
				case strings.HasSuffix(name, "_total"):
					xys = rates(xys)
				}
				l := line{name: strings.TrimPrefix(name, "fdb_") + " " + key, xys: xys}
				for _, xy := range xys {
					l.peak = max(l.peak, xy.Y)
				}
				lines = append(lines, l)
			}
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(b.peak, a.peak) })
	for i, l := range lines[:min(len(lines), maxLines)] {
		lp, err := plotter.NewLine(l.xys)
		if err != nil {
			continue
		}
		lp.Color = plotutil.Color(i)
		lp.Width = vg.Points(1.5)
		pl.Add(lp)
		pl.Legend.Add(l.name, lp)
	}
	if len(lines) == 0 {
		pl.Title.Text += " (no samples)"
		pl.Title.TextStyle.Color = color.Gray{Y: 128}
	}
	pl.Legend.TextStyle.Font.Size = vg.Points(7)
	return pl
}

// rates turns a counter's samples into per-second rates between scrapes.
func rates(xys plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for i := 1; i < len(xys); i++ {
		if dt := xys[i].X - xys[i-1].X; dt > 0 {
			out = append(out, plotter.XY{X: xys[i].X, Y: max(xys[i].Y-xys[i-1].Y, 0) / dt})
		}
	}
	return out
}

// write draws the plots in a grid of columns and writes it as PNG to out.
func write(plots []*plot.Plot, columns int, out string) error {
	rows := (len(plots) + columns - 1) / columns
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, columns)
		copy(grid[i], plots[i*columns:min(len(plots), (i+1)*columns)])
	}
	img := vgimg.New(vg.Length(columns)*5*vg.Inch, vg.Length(rows)*3*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: columns, PadX: vg.Millimeter, PadY: vg.Millimeter,
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(out) //nolint:gosec // the file the user names
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", out, err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("cannot write %s: %w", out, err)
	}
	return f.Close()
}
