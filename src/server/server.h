/* server.h - the cuzkd daemon: configuration (config/config.h), the cuzk.v1.ProvingEngine
 * service (protobuf-c messages over the gRPC shim in server/rpc/), and the process lifecycle.
 *
 * srv_main runs the whole daemon: parse flags and the config file, block SIGINT, SIGTERM,
 * SIGQUIT, SIGHUP and SIGUSR1 before any thread starts, check the listen addresses (a unix
 * socket a live process listens on is refused), create the engine (handlers of this build, plus
 * those `extra` registers), serve the listen addresses, sigwait. SIGHUP is logged and ignored,
 * SIGUSR1 logs a status line. On SIGINT/SIGTERM stop accepting new proofs and let queued and
 * running ones finish for up to daemon.shutdown_grace (a second stop signal cuts that short);
 * SIGQUIT skips the grace. Then stop the RPC server (open calls get UNAVAILABLE, which clients
 * retry) and the engine, and remove the unix socket files made.
 * Exit status: 0 after a clean shutdown (any stop signal) or --help/--version/--print-config;
 * 1 when start-up fails (bad parameters directory is not fatal, a port that cannot be bound or
 * a unix socket in use is); 2 on a usage or configuration error.
 */
#ifndef CUZK_SERVER_SERVER_H
#define CUZK_SERVER_SERVER_H

#include "common/common.h"
#include "engine/engine.h"
#include "config/config.h"

/** Registers proof-kind handlers before the engine starts, INSTEAD of the built-in Filecoin
 *  handlers (tests use it for their test handler). Returning an error aborts start-up with exit
 *  status 1. */
typedef cuzk_err (*srv_register_fn)(eng_t *eng, const srv_config *cfg, void *ctx, cz_diag *dg);

/** The daemon's main; see the file comment. extra may be NULL. */
int srv_main(int argc, char **argv, srv_register_fn extra, void *extra_ctx);

/** The eight method paths of cuzk.v1.ProvingEngine, in the service's declaration order. */
#define SRV_NMETHODS 8
extern const char *const srv_method_paths[SRV_NMETHODS];
/** The methods whose requests carry vanilla proofs (SubmitProof, Prove: up to the message
 *  limit); the others' requests are a few bytes. */
extern const bool srv_method_large[SRV_NMETHODS];

#endif /* CUZK_SERVER_SERVER_H */
