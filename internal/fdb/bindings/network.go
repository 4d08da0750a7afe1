package bindings

// EnvExternalClientDirectory names the environment setting that holds the
// directory of the client libraries of older FoundationDB lines, one
// libfdb_c_<major.minor>.so per line, which the client loads beside the
// library it is linked with (the newest line's) through the multi-version
// client's external_client_directory network option: a database speaks the
// protocol of one line, and the client reaches it through the library of
// that line (documentation/sphinx/source/api-general.rst, "Multi-version
// client", 7.1.67 and 7.3.63). Unset, the client reaches the databases of
// its own library's line only.
//
// The client sets the option itself rather than through
// FDB_NETWORK_OPTION_EXTERNAL_CLIENT_DIRECTORY, which every FoundationDB
// client reads when it selects its API version, the fdbcli, fdbbackup and
// fdbrestore the provider runs in its environment included: each of those
// speaks its own line's protocol and, like the tools the FoundationDB
// operator runs (fdbclient/command_runner.go, which takes that setting out
// of their environment), loads no other library.
const EnvExternalClientDirectory = "PROVIDER_FDB_EXTERNAL_CLIENT_DIRECTORY"
