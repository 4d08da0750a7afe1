package sim

import (
	"slices"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// The way back from lost coordinators, as FoundationDB allows it: the
// coordinated state lives in each coordinator's data directory, in the files
// coordination-0.fdq and coordination-1.fdq (fdbserver/Coordination.actor.cpp,
// fileCoordinatorPrefix, 7.3.79), and every fdbserver keeps the connection
// string it last knew in its own cluster file (--cluster_file), which it
// seeds from --seed_cluster_file only when there is none
// (fdbserver/fdbserver.actor.cpp, 7.3.79: "seedSpecified &&
// !fileExists(connFile)"). The coordinators command cannot repair a
// database whose coordinators are lost: it needs a majority of them
// (documentation/sphinx/source/configuration.rst, "Changing coordination
// servers"). What remains is what the operator's kubectl-fdb
// recover-multi-region-cluster does (FoundationDB/fdb-kubernetes-operator
// kubectl-fdb/cmd/recover_multi_region_cluster.go, v2.33.0): copy both files
// from a coordinator that kept them to the processes that become the new
// coordinators, put the new connection string in the seed cluster file,
// delete every process's own cluster file and restart it. The provider
// writes the new connection string into each pod's cluster file itself,
// so that no restart waits for the kubelet to deliver the seed.
//
// The model: a process holds copied coordination files (copiedState, the
// connection string whose coordinated state they are) and a cluster file of
// its own (clusterFile), which it writes once it joined and rewrites with
// every coordinator change it learns of, as fdbserver does; one that has
// none yet (a new process, or one whose disk was lost) follows the
// database: the model does not read the seed, which the provider writes
// before anything runs and keeps naming the current coordinators. Once the coordinated state is
// lost (CoordinatorStateLost), a connection string whose coordinators are,
// for a quorum of them, processes running on that very cluster file and
// holding files copied from a coordinator that kept the state becomes the
// database's: the old one is abandoned, and a process whose own cluster
// file still names it never finds the database again until its file is
// deleted.

const (
	errCopyCoordinationFiles = "cannot copy the coordination files"
	errWriteClusterFile      = "cannot write the cluster file"

	reasonNoCoordinatedState = "holds no coordinated state"
)

// CopyCoordinationFiles copies the coordination files of process from to
// process to, as a copy through both pods would: both must run, and from
// must hold coordinated state of the current connection string — serve
// one of its coordinators and not have lost its disk since it was named,
// or hold files copied from one that did.
func (s *Sim) CopyCoordinationFiles(from, to string) error {
	s.lock()
	defer s.mu.Unlock()
	src, dst := s.procs[from], s.procs[to]
	switch {
	case src == nil || dst == nil:
		return errors.Errorf("%s from %q to %q: %s", errCopyCoordinationFiles, from, to, reasonUnknownProcess)
	case !src.running || !dst.running:
		return errors.Errorf("%s from %s to %s: both processes must run", errCopyCoordinationFiles, from, to)
	}
	s.took(OpCopyCoordinationFiles, from, to)
	state := s.coordinatedStateOf(src)
	if state == "" {
		return errors.Errorf("%s from %s: it %s", errCopyCoordinationFiles, from, reasonNoCoordinatedState)
	}
	dst.copiedState = state
	s.evaluate()
	return nil
}

// RestartOnClusterFile puts connection string cs into process id's own
// cluster file and kills it; it starts again at once (its monitor restarts
// it) on that file.
func (s *Sim) RestartOnClusterFile(id, cs string) error {
	parsed, err := fdb.ParseConnectionString(cs)
	if err != nil {
		return errors.Wrap(err, errWriteClusterFile)
	}
	s.lock()
	defer s.mu.Unlock()
	p := s.procs[id]
	if p == nil {
		return errors.Errorf("%s of %q: %s", errWriteClusterFile, id, reasonUnknownProcess)
	}
	s.took(OpRestartOnClusterFile, id, parsed.String())
	p.clusterFile = parsed.String()
	if p.running {
		s.restart(p, s.groups[p.group])
		s.restoreCoordinators(p)
	}
	s.evaluate()
	return nil
}

// restoreCoordinators: p, restarted on the current connection string with
// coordination files copied from it, serves its coordinators with the
// state again; once a quorum holds it, the state is no longer lost and a
// recovery reads it (the way back that keeps the coordinators).
func (s *Sim) restoreCoordinators(p *process) {
	if p.copiedState == "" || p.copiedState != s.conn.String() || p.clusterFile != p.copiedState {
		return
	}
	served := s.servedCoordinators(p)
	s.coordinatorsLost = slices.DeleteFunc(s.coordinatorsLost, func(c fdb.ProcessAddress) bool { return slices.Contains(served, c) })
	p.copiedState = ""
	if n := len(s.conn.Coordinators); s.stateLost && n-len(s.coordinatorsLost) >= quorum(n) {
		s.stateLost = false
		s.triggerRecovery()
	}
}

// ClusterFileOf returns the connection string in process id's own cluster
// file: "" when it has none of its own and follows the database.
func (s *Sim) ClusterFileOf(id string) string {
	s.lock()
	defer s.mu.Unlock()
	if p := s.procs[id]; p != nil {
		return p.clusterFile
	}
	return ""
}

// coordinatedStateOf is the connection string whose coordinated state p
// holds: the current one when p serves one of its coordinators that kept
// its disk, else what was copied to it, "" when neither.
func (s *Sim) coordinatedStateOf(p *process) string {
	for _, c := range s.servedCoordinators(p) {
		if !slices.Contains(s.coordinatorsLost, c) {
			return s.conn.String()
		}
	}
	return p.copiedState
}

// reaches reports whether p's own cluster file leads it to the database:
// it has none of its own, or it names the current coordinators or earlier
// ones, which forward it to the current ones. One that names coordinators
// the database abandoned, or ones it never had (a seed for coordinators not
// adopted yet), does not.
func (s *Sim) reaches(p *process) bool {
	if p.clusterFile == "" || p.clusterFile == s.conn.String() {
		return true
	}
	return slices.ContainsFunc(s.forwarded, func(cs fdb.ConnectionString) bool { return cs.String() == p.clusterFile })
}

// adoptRecoveredCoordinators moves the database to connection string cs
// once its coordinated state is lost and a quorum of cs's coordinators are
// processes running on cs as their own cluster file that hold files copied
// from a coordinator that kept the state (see the comment at the top).
func (s *Sim) adoptRecoveredCoordinators() {
	if !s.stateLost {
		return
	}
	lost := s.conn.String()
	var candidates []string
	for _, id := range s.procIDs {
		if p := s.procs[id]; p.running && p.clusterFile != "" && p.clusterFile != lost && !slices.Contains(candidates, p.clusterFile) {
			candidates = append(candidates, p.clusterFile)
		}
	}
	slices.Sort(candidates)
	for _, c := range candidates {
		cs, err := fdb.ParseConnectionString(c)
		if err != nil || slices.ContainsFunc(s.abandoned, func(a fdb.ConnectionString) bool { return a.String() == c }) {
			continue
		}
		holding := 0
		for _, a := range cs.Coordinators {
			if p := s.listening[string(a)]; p != nil && p.clusterFile == c && s.coordinatedStateOf(p) == lost {
				holding++
			}
		}
		if holding < quorum(len(cs.Coordinators)) {
			continue
		}
		s.abandoned = append(s.abandoned, s.conn)
		s.conn = cs
		s.coordinatorsLost, s.stateLost = nil, false
		for _, id := range s.procIDs {
			s.procs[id].copiedState = ""
		}
		s.triggerRecovery()
		return
	}
}
