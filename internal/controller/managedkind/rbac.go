package managedkind

// Every managed kind's controller, through crossplane-runtime's managed
// reconciler, reads and watches its resources, updates them (finalizer,
// external-name and creation annotations) and their status, writes the
// connection Secret a resource asks for and records events. A resource is
// the controller of its connection Secret and ProviderConfigUsage (and a
// Cluster of its ProcessGroups), which, where the API server enforces
// owner-reference permissions, takes update on the owner's finalizers.
// +kubebuilder:rbac:groups=foundationdb.m.crossplane.io,resources=clusters;processgroups;backups;restores,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=foundationdb.m.crossplane.io,resources=clusters/status;processgroups/status;backups/status;restores/status,verbs=update
// +kubebuilder:rbac:groups=foundationdb.m.crossplane.io,resources=clusters/finalizers;processgroups/finalizers;backups/finalizers;restores/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
