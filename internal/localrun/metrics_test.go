package localrun_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/dashboard"
	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
)

// notInTheQuickstart are the metrics of objects the quickstart has none of:
// Restores, backups, a global lock.
var notInTheQuickstart = []*dbmetrics.Metric{
	dbmetrics.RestoreRunning, dbmetrics.RestoreDone, dbmetrics.BackupRunning, dbmetrics.BackupRestorab,
	dbmetrics.BackupLag, dbmetrics.GlobalLockHolder,
}

// databaseMetrics holds the provider's /metrics to the database figures of
// the quickstart Cluster (every metric of internal/dbmetrics but those of
// objects it has none of) and to every metric the dashboard's queries name.
func databaseMetrics(ctx context.Context, t *testing.T, url string, key client.ObjectKey) {
	var missing []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		families, err := scrapeFamilies(ctx, url)
		if err != nil {
			return false, err
		}
		missing = nil
		for _, m := range dbmetrics.All {
			if !slices.Contains(notInTheQuickstart, m) && !hasSeries(families[m.Name], key) {
				missing = append(missing, m.Name)
			}
		}
		d, err := dashboard.Build()
		if err != nil {
			return false, err
		}
		for _, q := range dashboard.Queries(d) {
			for _, name := range dashboard.MetricNames(q) {
				if _, ok := families[name]; !ok && !slices.ContainsFunc(notInTheQuickstart, func(m *dbmetrics.Metric) bool { return m.Name == name }) {
					missing = append(missing, fmt.Sprintf("%s (the dashboard's %q)", name, q))
				}
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("the provider's /metrics lacks %v: %v", missing, err)
	}
}

// hasSeries reports whether f has a series of the Cluster key.
func hasSeries(f *dto.MetricFamily, key client.ObjectKey) bool {
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels[dbmetrics.LabelNamespace] == key.Namespace && labels[dbmetrics.LabelCluster] == key.Name {
			return true
		}
	}
	return false
}

func scrapeFamilies(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	var out map[string]*dto.MetricFamily
	err := scrapeMetrics(ctx, url, func(r io.Reader) (err error) {
		p := expfmt.NewTextParser(model.UTF8Validation)
		out, err = p.TextToMetricFamilies(r)
		return err
	})
	return out, err
}

// scrapeMetrics gets the provider's metrics at url and reads them with read.
func scrapeMetrics(ctx context.Context, url string, read func(io.Reader) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cannot scrape the provider's metrics: %w", err)
	}
	defer resp.Body.Close() //nolint:errcheck // read-only
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the provider's metrics: %s", resp.Status)
	}
	return read(resp.Body)
}
