package options

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	changelogsv1alpha1 "github.com/crossplane/crossplane-runtime/v2/apis/changelogs/proto/v1alpha1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// steady is a resource that is Ready and whose last Observe found it up to
// date.
func steady(mg resource.Managed) {
	mg.SetConditions(xpv2.Available(), xpv2.Condition{Type: xpv2.TypeUpToDate, Status: corev1.ConditionTrue, Reason: xpv2.ReasonObserveMatched})
}

// watched returns a Watched that always returns w.
func watched(w bool) func(resource.Managed) bool { return func(resource.Managed) bool { return w } }

// draw returns a random source that always returns r.
func draw(r float64) func() float64 { return func() float64 { return r } }

func TestPollIntervalHook(t *testing.T) {
	cases := map[string]struct {
		reason       string
		o            Options
		steady       bool
		annotation   string
		pollInterval time.Duration
		want         time.Duration
	}{
		"ConvergingDefaultActivePoll": {
			reason:       "A resource that is not Ready is reconciled every DefaultActivePoll when the options name no active poll.",
			pollInterval: time.Minute,
			want:         DefaultActivePoll,
		},
		"ConvergingActivePoll": {
			reason:       "A resource that is not Ready is reconciled every ActivePoll.",
			o:            Options{ActivePoll: 2 * time.Second},
			pollInterval: time.Minute,
			want:         2 * time.Second,
		},
		"SteadyPollInterval": {
			reason:       "A Ready, up-to-date resource is reconciled every poll interval.",
			steady:       true,
			pollInterval: time.Minute,
			want:         time.Minute,
		},
		"SteadyLowestJitter": {
			reason:       "The lowest draw moves the poll interval down by the whole jitter percentage.",
			o:            Options{PollJitterPercentage: 10, Rand: draw(0)},
			steady:       true,
			pollInterval: time.Minute,
			want:         54 * time.Second,
		},
		"SteadyMiddleJitter": {
			reason:       "The middle draw leaves the poll interval as it is.",
			o:            Options{PollJitterPercentage: 10, Rand: draw(0.5)},
			steady:       true,
			pollInterval: time.Minute,
			want:         time.Minute,
		},
		"SteadyUpperJitter": {
			reason:       "A draw of 0.75 moves the poll interval up by half the jitter percentage.",
			o:            Options{PollJitterPercentage: 10, Rand: draw(0.75)},
			steady:       true,
			pollInterval: time.Minute,
			want:         63 * time.Second,
		},
		"SteadyJitterRaisedToMinimum": {
			reason:       "Jitter never takes a poll interval below MinPollInterval.",
			o:            Options{PollJitterPercentage: 10, Rand: draw(0), MinPollInterval: 15 * time.Second},
			steady:       true,
			pollInterval: 15 * time.Second,
			want:         15 * time.Second,
		},
		"SteadyJitterAboveMinimum": {
			reason:       "Jitter above MinPollInterval is kept.",
			o:            Options{PollJitterPercentage: 10, Rand: draw(0.75), MinPollInterval: 15 * time.Second},
			steady:       true,
			pollInterval: 15 * time.Second,
			want:         15*time.Second + 750*time.Millisecond,
		},
		"ConvergingJitterBelowMinimum": {
			reason:       "The active poll is jittered too, and not raised to MinPollInterval: it is the provider's own cadence.",
			o:            Options{ActivePoll: 5 * time.Second, PollJitterPercentage: 10, Rand: draw(0), MinPollInterval: 15 * time.Second},
			pollInterval: time.Minute,
			want:         4500 * time.Millisecond,
		},
		"WatchedSteadyWatchedPoll": {
			reason:       "A Ready, up-to-date resource whose drift arrives as events is polled every WatchedPoll.",
			o:            Options{WatchedPoll: 5 * time.Minute, Watched: watched(true)},
			steady:       true,
			pollInterval: time.Minute,
			want:         5 * time.Minute,
		},
		"WatchedJitter": {
			reason:       "WatchedPoll is jittered like the poll interval.",
			o:            Options{WatchedPoll: 5 * time.Minute, Watched: watched(true), PollJitterPercentage: 10, Rand: draw(0)},
			steady:       true,
			pollInterval: time.Minute,
			want:         270 * time.Second,
		},
		"UnwatchedSteadyPollInterval": {
			reason:       "A resource whose drift does not arrive as events is polled every poll interval.",
			o:            Options{WatchedPoll: 5 * time.Minute, Watched: watched(false)},
			steady:       true,
			pollInterval: time.Minute,
			want:         time.Minute,
		},
		"WatchedConvergingActivePoll": {
			reason:       "A watched resource that converges is reconciled every ActivePoll.",
			o:            Options{WatchedPoll: 5 * time.Minute, Watched: watched(true)},
			pollInterval: time.Minute,
			want:         DefaultActivePoll,
		},
		"WatchedAnnotatedPollInterval": {
			reason:       "A crossplane.io/poll-interval annotation is the resource's own choice and overrides WatchedPoll.",
			o:            Options{WatchedPoll: 5 * time.Minute, Watched: watched(true)},
			steady:       true,
			annotation:   "30s",
			pollInterval: 30 * time.Second,
			want:         30 * time.Second,
		},
		"WatchedPollNotShorter": {
			reason:       "WatchedPoll never shortens a longer poll interval.",
			o:            Options{WatchedPoll: 5 * time.Minute, Watched: watched(true)},
			steady:       true,
			pollInterval: 10 * time.Minute,
			want:         10 * time.Minute,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := &fake.ModernManaged{}
			if tc.steady {
				steady(mg)
			}
			if tc.annotation != "" {
				meta.AddAnnotations(mg, map[string]string{meta.AnnotationKeyPollInterval: tc.annotation})
			}
			got := tc.o.PollIntervalHook()(mg, tc.pollInterval)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nPollIntervalHook()(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPollJitterRange draws from a seeded source: every poll interval stays
// within the jitter percentage, and jitter moves it both ways.
func TestPollJitterRange(t *testing.T) {
	o := Options{PollJitterPercentage: 20, Rand: rand.New(rand.NewPCG(1, 2)).Float64}
	hook := o.PollIntervalHook()
	mg := &fake.ModernManaged{}
	steady(mg)
	lo, hi := 48*time.Second, 72*time.Second
	var shorter, longer int
	for range 1000 {
		got := hook(mg, time.Minute)
		if got < lo || got >= hi {
			t.Fatalf("PollIntervalHook()(...) = %s, want within [%s, %s)", got, lo, hi)
		}
		switch {
		case got < time.Minute:
			shorter++
		case got > time.Minute:
			longer++
		}
	}
	if shorter == 0 || longer == 0 {
		t.Errorf("PollIntervalHook()(...): %d polls shorter and %d longer than the poll interval, want both", shorter, longer)
	}
}

// changeLog records the operations change log entries are sent for.
type changeLog struct {
	ops []changelogsv1alpha1.OperationType
}

func (c *changeLog) Log(_ context.Context, _ resource.Managed, op changelogsv1alpha1.OperationType, _ error, _ managed.AdditionalDetails) error {
	c.ops = append(c.ops, op)
	return nil
}

// TestReconcilerOptions runs crossplane-runtime's managed reconciler with
// the shared options on a Ready resource that exists: the requeue it asks
// for and the change log entries it sends.
func TestReconcilerOptions(t *testing.T) {
	type want struct {
		result reconcile.Result
		ops    []changelogsv1alpha1.OperationType
	}
	cases := map[string]struct {
		reason       string
		pollInterval string
		upToDate     bool
		want         want
	}{
		"NoAnnotation": {
			reason:   "Without the annotation a steady resource is polled every PollInterval.",
			upToDate: true,
			want:     want{result: reconcile.Result{RequeueAfter: time.Minute}},
		},
		"AnnotationAboveMinimum": {
			reason:       "A poll-interval annotation at or above MinPollInterval is the poll interval.",
			pollInterval: "2m",
			upToDate:     true,
			want:         want{result: reconcile.Result{RequeueAfter: 2 * time.Minute}},
		},
		"AnnotationBelowMinimum": {
			reason:       "A poll-interval annotation below MinPollInterval is raised to it.",
			pollInterval: "1s",
			upToDate:     true,
			want:         want{result: reconcile.Result{RequeueAfter: 15 * time.Second}},
		},
		"UpdateIsChangeLogged": {
			reason: "An update of the external resource sends a change log entry.",
			want: want{
				result: reconcile.Result{RequeueAfter: time.Minute},
				ops:    []changelogsv1alpha1.OperationType{changelogsv1alpha1.OperationType_OPERATION_TYPE_UPDATE},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			log := &changeLog{}
			o := Options{MinPollInterval: 15 * time.Second, Options: controller.Options{
				Logger: logging.NewNopLogger(), PollInterval: time.Minute, ChangeLogOptions: &controller.ChangeLogOptions{ChangeLogger: log},
			}}
			get := test.NewMockGetFn(nil, func(obj client.Object) error {
				mg := obj.(*fake.ModernManaged)
				mg.SetManagementPolicies(xpv2.ManagementPolicies{xpv2.ManagementActionAll})
				if tc.pollInterval != "" {
					meta.AddAnnotations(mg, map[string]string{meta.AnnotationKeyPollInterval: tc.pollInterval})
				}
				steady(mg)
				return nil
			})
			m := &fake.Manager{
				Client: &test.MockClient{MockGet: get, MockStatusUpdate: test.NewMockSubResourceUpdateFn(nil)},
				Scheme: fake.SchemeWith(&fake.ModernManaged{}),
			}
			external := &managed.ExternalClientFns{
				ObserveFn: func(context.Context, resource.Managed) (managed.ExternalObservation, error) {
					return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: tc.upToDate}, nil
				},
				UpdateFn: func(context.Context, resource.Managed) (managed.ExternalUpdate, error) {
					return managed.ExternalUpdate{}, nil
				},
				DisconnectFn: func(context.Context) error { return nil },
			}
			opts := append(o.ReconcilerOptions("managed/test", managed.WithRecorder(event.NewNopRecorder())),
				managed.WithInitializers(),
				managed.WithReferenceResolver(managed.ReferenceResolverFn(func(context.Context, resource.Managed) error { return nil })),
				managed.WithFinalizer(resource.FinalizerFns{AddFinalizerFn: func(context.Context, resource.Object) error { return nil }}),
				managed.WithExternalConnector(managed.ExternalConnectorFn(func(context.Context, resource.Managed) (managed.ExternalClient, error) {
					return external, nil
				})))
			r := managed.NewReconciler(m, resource.ManagedKind(fake.GVK(&fake.ModernManaged{})), opts...)
			result, err := r.Reconcile(context.Background(), reconcile.Request{})
			if err != nil {
				t.Fatal(err)
			}
			got := want{result: result, ops: log.ops}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nReconcile(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
