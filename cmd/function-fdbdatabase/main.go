// Command function-fdbdatabase is the Crossplane composition function of the
// FDBDatabase self-service API (examples/composition): a gRPC server that
// Crossplane calls for each step of the Composition's pipeline.
package main

import (
	"flag"
	"fmt"
	"os"

	function "github.com/crossplane/function-sdk-go"

	"github.com/crossplane-contrib/provider-foundationdb/internal/composition"
)

func main() {
	address := flag.String("address", ":9443", "Address to listen on for gRPC connections.")
	certs := flag.String("tls-server-certs-dir", os.Getenv("TLS_SERVER_CERTS_DIR"), "Directory of the mTLS certificates (tls.crt, tls.key, ca.crt) Crossplane provides.")
	insecure := flag.Bool("insecure", false, "Serve without mTLS, for local development.")
	flag.Parse()
	if err := serve(*address, *certs, *insecure); err != nil {
		fmt.Fprintln(os.Stderr, "function-fdbdatabase:", err)
		os.Exit(1)
	}
}

func serve(address, certs string, insecure bool) error {
	return function.Serve(&composition.Function{},
		function.Listen("tcp", address),
		function.MTLSCertificates(certs),
		function.Insecure(insecure),
	)
}
