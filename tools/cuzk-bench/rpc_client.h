/* rpc_client.h - a unary gRPC client for C: raw request bytes out, raw response bytes in.
 * Implemented in rpc_client.cc, the only C++ in cuzk-bench (gRPC's callback API through a
 * generic ByteBuffer stub; no C++ protobuf, no generated C++ code). Messages are encoded and
 * decoded by the caller with protobuf-c.
 *
 * Model: cli_rpc_open makes a channel to one server ("unix:///abs/path", "unix:rel/path" or
 * "host:port"); send and receive limits are 256 MiB (Curio's client uses the same), HTTP
 * proxies are never used. cli_rpc_start issues one unary call and returns at once; the call
 * completes on gRPC's threads. cli_rpc_wait_any blocks until one of several calls finished,
 * so one thread can keep many calls in flight (cuzk-bench batch and stress). Calls fail fast
 * (UNAVAILABLE) when nothing listens at the address: they do not wait for the server.
 *
 * Threads: a channel may be used from several threads; a call belongs to the thread that
 * started it. Memory: request bytes are copied at start; the response stays valid until
 * cli_rpc_call_free.
 */
#ifndef CUZK_TOOLS_CUZK_BENCH_RPC_CLIENT_H
#define CUZK_TOOLS_CUZK_BENCH_RPC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cli_rpc cli_rpc;
typedef struct cli_rpc_call cli_rpc_call;

/** gRPC status codes (numbering of grpc/status.h) the commands name. */
#define CLI_RPC_OK                0
#define CLI_RPC_CANCELLED         1
#define CLI_RPC_DEADLINE_EXCEEDED 4
#define CLI_RPC_NOT_FOUND         5
#define CLI_RPC_UNIMPLEMENTED     12
#define CLI_RPC_UNAVAILABLE       14

/** Wait forever (cli_rpc_wait_any). */
#define CLI_RPC_FOREVER UINT64_MAX

/** Opens a channel to `addr`. Out: out returns owned (cli_rpc_close). err (cap bytes) gets a
 *  description on failure. Errors: CUZK_E_INVAL (empty or malformed address), CUZK_E_NOMEM. */
cuzk_err cli_rpc_open(cli_rpc **out, const char *addr, char *err, size_t cap);

/** Closes the channel. Every call must have been freed. NULL does nothing. */
void cli_rpc_close(cli_rpc *rpc);

/** Starts the unary call `method` ("/cuzk.v1.ProvingEngine/GetStatus") with `len` request
 *  bytes (copied). timeout_ms: the call's deadline (0 = none). Returns owned
 *  (cli_rpc_call_free); NULL only when out of memory. */
cli_rpc_call *cli_rpc_start(cli_rpc *rpc, const char *method, const uint8_t *req, size_t len,
                            uint64_t timeout_ms);

/** Waits up to wait_ms (CLI_RPC_FOREVER: no limit) until one of the n calls (all of `rpc`)
 *  has finished. Returns the index of a finished call (the lowest such index), or -1 when
 *  none finished in time. A finished call stays finished: remove it from the set before
 *  waiting again. */
long cli_rpc_wait_any(cli_rpc *rpc, cli_rpc_call *const *calls, size_t n, uint64_t wait_ms);

/** True once the call has finished (never blocks). */
bool cli_rpc_done(const cli_rpc_call *call);

/** After the call finished: its gRPC status code (CLI_RPC_OK on success) and message (the
 *  server's text, or gRPC's for transport failures; "" when none). Valid until free. */
int cli_rpc_code(const cli_rpc_call *call);
const char *cli_rpc_message(const cli_rpc_call *call);

/** After a successful call: the response bytes (len may be 0; never NULL). Valid until free. */
const uint8_t *cli_rpc_response(cli_rpc_call *call, size_t *len);

/** Cancels the call if it is still in flight, waits until gRPC let go of it, frees it.
 *  NULL does nothing. */
void cli_rpc_call_free(cli_rpc_call *call);

/** "OK", "UNAVAILABLE", ... for a status code; "UNKNOWN_CODE" outside 0..16. */
const char *cli_rpc_code_name(int code);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_TOOLS_CUZK_BENCH_RPC_CLIENT_H */
