/* rpc.h - a unary gRPC server for C: raw request bytes in, raw response bytes out.
 * Implemented in rpc.cc, the only C++ in the daemon (gRPC's callback API with a generic
 * ByteBuffer service; no C++ protobuf). Messages are encoded and decoded by the caller.
 *
 * Model: srv_rpc_start binds the listen addresses and serves the method paths of a table
 * ("/cuzk.v1.ProvingEngine/Prove", ...). Each call whose first request message arrives is
 * handed to `handler` with its method index and the message bytes; any other path gets
 * UNIMPLEMENTED. The handler (or any thread, later) finishes the call exactly once with
 * srv_call_reply or srv_call_fail. A call whose client goes away (or that is still open when
 * the shutdown grace period ends) is finished by the shim; a later reply is then a no-op that
 * only releases the call, so the application never races with gRPC over a call's lifetime.
 *
 * Threads: the handler runs on gRPC's callback threads and must not block (hand long work to
 * other threads and finish from there). srv_call_* may be called from any thread.
 * Signals: block the signals the daemon handles (SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGUSR1) in
 * the calling thread before srv_rpc_start so that gRPC's threads inherit the mask (the daemon
 * sigwaits for them in main).
 * Unix sockets: gRPC unlinks a socket file at the path before binding; the caller checks that
 * no live process listens there first (server/listen.c).
 */
#ifndef CUZK_SERVER_RPC_RPC_H
#define CUZK_SERVER_RPC_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct srv_rpc srv_rpc;
typedef struct srv_call srv_call;

/** gRPC status codes (numbering of grpc/status.h). */
typedef enum srv_code {
    SRV_OK = 0,
    SRV_CANCELLED = 1,
    SRV_UNKNOWN = 2,
    SRV_INVALID_ARGUMENT = 3,
    SRV_DEADLINE_EXCEEDED = 4,
    SRV_NOT_FOUND = 5,
    SRV_ALREADY_EXISTS = 6,
    SRV_PERMISSION_DENIED = 7,
    SRV_RESOURCE_EXHAUSTED = 8,
    SRV_FAILED_PRECONDITION = 9,
    SRV_ABORTED = 10,
    SRV_OUT_OF_RANGE = 11,
    SRV_UNIMPLEMENTED = 12,
    SRV_INTERNAL = 13,
    SRV_UNAVAILABLE = 14,
    SRV_DATA_LOSS = 15,
    SRV_UNAUTHENTICATED = 16
} srv_code;

/** Called once per call with its first request message (borrowed during the call only). */
typedef void (*srv_rpc_handler)(void *ctx, srv_call *call, size_t method, const uint8_t *req,
                                size_t len);

typedef struct srv_rpc_opts {
    const char *const *listen; /* "host:port" or "unix:///abs/path" */
    size_t nlisten;
    const char *const *methods; /* full paths, e.g. "/pkg.Service/Method" */
    size_t nmethods;
    srv_rpc_handler handler;
    void *ctx;
    unsigned socket_mode;     /* permission bits given to unix sockets, e.g. 0660 */
    size_t max_message_bytes; /* receive and send limit (0 = 256 MiB) */
    /* Requests being received: calls of the methods with gated[i] (all methods when gated is
     * NULL) read their request message at most max_reading at a time (0 = no limit), counted
     * from the start of the read until the handler returns; the others wait, in arrival order,
     * before any byte of their message is read (HTTP/2 flow control holds the client back). */
    const bool *gated;
    size_t max_reading;
} srv_rpc_opts;

/** Starts serving. Every address must bind, else nothing is served.
 *  Out: out  returns owned (srv_rpc_shutdown, then srv_rpc_free). err_msg (cap bytes) gets a
 *  description on failure. Errors: CUZK_E_INVAL (bad options), CUZK_E_IO (bind failed). */
cuzk_err srv_rpc_start(srv_rpc **out, const srv_rpc_opts *opts, char *err_msg, size_t cap);

/** The TCP port bound for listen address i (useful with "host:0"); 0 for unix sockets. */
int srv_rpc_port(const srv_rpc *rpc, size_t i);

/** Finishes a call with status OK and `len` response bytes (copied). Releases the call. */
void srv_call_reply(srv_call *call, const uint8_t *resp, size_t len);

/** Finishes a call with an error status and message (copied). Releases the call. */
void srv_call_fail(srv_call *call, srv_code code, const char *msg);

/** True once the client cancelled the call, its deadline passed, or the server cancelled it
 *  at shutdown. Valid until the call is released. */
bool srv_call_is_cancelled(const srv_call *call);

/** Refuses new calls (UNAVAILABLE), waits up to grace_ms for open calls to be finished by the
 *  application, then finishes the rest with UNAVAILABLE ("cuzkd is stopping"; calls waiting
 *  to read their request included), stops the server and waits for gRPC to let go of every
 *  call. Calls may still be replied to afterwards (no-ops); srv_call_is_cancelled is true for
 *  the calls finished so. */
void srv_rpc_shutdown(srv_rpc *rpc, unsigned grace_ms);

/** Frees the server (after srv_rpc_shutdown). NULL does nothing. */
void srv_rpc_free(srv_rpc *rpc);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_SERVER_RPC_RPC_H */
