package v1alpha1

// StorageMigrationObservation is the progress of a storage engine
// migration, as the last status showed it.
type StorageMigrationObservation struct {
	// Engine is the storage engine the database is configured with, as
	// its status names it.
	Engine string `json:"engine"`
	// Migrated counts the processes whose storage servers all run it, of
	// Total, the processes that run storage servers.
	Migrated int `json:"migrated"`
	Total    int `json:"total"`
	// Wiggling are the addresses of the servers the perpetual wiggle is
	// replacing now.
	// +optional
	// +listType=atomic
	Wiggling []string `json:"wiggling,omitempty"`
}
