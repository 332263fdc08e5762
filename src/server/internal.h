/* internal.h - pieces of server/ shared by daemon.c and service.c. */
#ifndef CUZK_SERVER_INTERNAL_H
#define CUZK_SERVER_INTERNAL_H

#include "server/server.h"
#include "server/rpc/rpc.h"

/** Decodes a call's request with protobuf-c, runs it against the engine and finishes the call
 *  (from this thread or, for AwaitProof / Prove / PreloadSRS, from an engine thread).
 *  ctx is the eng_t. Matches srv_rpc_handler. */
void srv_service_handle(void *ctx, srv_call *call, size_t method, const uint8_t *req, size_t len);

#endif /* CUZK_SERVER_INTERNAL_H */
