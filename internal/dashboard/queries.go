package dashboard

//lint:file-ignore SA1019 the dashboard is the classic JSON model, which Grafana's import and file provisioning take; schema v2 is a Kubernetes-style resource.

import (
	"regexp"
	"slices"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

// A Panel is a panel's title and the expressions of its queries.
type Panel struct {
	Title string
	Exprs []string
}

// Panels returns the dashboard's panels that query, in order.
func Panels(d dashboard.Dashboard) []Panel {
	var out []Panel
	for _, p := range d.Panels {
		if p.Panel == nil {
			continue
		}
		panel := Panel{}
		if p.Panel.Title != nil {
			panel.Title = *p.Panel.Title
		}
		for _, t := range p.Panel.Targets {
			if q, ok := t.(prometheus.Dataquery); ok {
				panel.Exprs = append(panel.Exprs, q.Expr)
			}
		}
		if len(panel.Exprs) > 0 {
			out = append(out, panel)
		}
	}
	return out
}

// Queries returns the expression of every panel's queries and of the
// template variables.
func Queries(d dashboard.Dashboard) []string {
	var out []string
	for _, p := range Panels(d) {
		out = append(out, p.Exprs...)
	}
	for _, v := range d.Templating.List {
		if v.Type == dashboard.VariableTypeQuery && v.Query != nil && v.Query.String != nil {
			out = append(out, *v.Query.String)
		}
	}
	return out
}

var (
	// What names no metric: strings, label matchers, ranges and durations,
	// Grafana's variables.
	notNames = regexp.MustCompile(`"[^"]*"|\{[^}]*\}|\[[^\]]*\]|\$\w+`)
	// An identifier and what follows it.
	identifier = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*\s*\(?`)
	// PromQL's keywords and the labels of grouping clauses come before or
	// inside parentheses; these stand alone.
	keywords = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset"}
	grouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	// label_values(metric{…}, label): the label is no metric.
	valuesLabel = regexp.MustCompile(`,\s*\w+\s*\)`)
)

// MetricNames returns the metric names a PromQL expression reads: every
// identifier that is not a function, keyword, label or Grafana variable.
func MetricNames(expr string) []string {
	expr = grouping.ReplaceAllString(notNames.ReplaceAllString(expr, " "), " ")
	expr = valuesLabel.ReplaceAllString(expr, ")")
	var names []string
	for _, tok := range identifier.FindAllString(expr, -1) {
		if strings.HasSuffix(tok, "(") {
			continue // a function
		}
		tok = strings.TrimSpace(tok)
		if slices.Contains(keywords, tok) || slices.Contains(names, tok) {
			continue
		}
		names = append(names, tok)
	}
	return names
}
