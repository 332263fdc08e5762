/* internal.h - pieces of server/ shared by daemon.c and service.c. */
#ifndef CUZK_SERVER_INTERNAL_H
#define CUZK_SERVER_INTERNAL_H

#include "server/server.h"
#include "server/rpc/rpc.h"

/** Decodes a call's request with protobuf-c, runs it against the engine and finishes the call
 *  (from this thread or, for AwaitProof / Prove / PreloadSRS, from an engine thread).
 *  ctx is the eng_t. Matches srv_rpc_handler. */
void srv_service_handle(void *ctx, srv_call *call, size_t method, const uint8_t *req, size_t len);

/* Listen addresses (listen.c). */

/** The file name of a "unix:///abs/path" or "unix:path" address; NULL for other schemes. */
const char *srv_unix_path(const char *addr);

struct srv_sockets;
/** Before the RPC server starts: logs a WARN line for each address open to more than the
 *  daemon's user and its group (a TCP address that is not loopback, a world-writable socket
 *  mode, an abstract socket), creates the parent directories of unix sockets, takes an
 *  exclusive lock on `<path>.lock` beside each (held in s until srv_sockets_remove, so that
 *  two daemons started together cannot both pass the next check), removes a stale socket file
 *  (nobody accepts on it) and refuses one that a live process listens on, or whose lock another
 *  process holds.
 *  Errors: CUZK_E_INVAL (another process listens there, or the path is not a socket),
 *  CUZK_E_IO (the path cannot be checked or the stale socket removed), message in dg. */
CZ_MUST_USE cuzk_err srv_listen_prepare(const srv_config *cfg, struct srv_sockets *s, cz_diag *dg);

/** After the RPC server failed to start: when one of cfg's TCP addresses cannot be bound now,
 *  msg gets "cannot listen on ADDR: REASON" (the first such address); msg is left as it is
 *  otherwise. */
void srv_listen_diagnose(const srv_config *cfg, char *msg, size_t cap);

/** A socket file this daemon made: its device and inode. */
typedef struct srv_socket_id {
    bool made;
    uint64_t dev, ino;
} srv_socket_id;

/** The socket files this daemon made (one slot per listen address), and the lock files it holds
 *  (descriptors, -1 for none; nlocks slots). */
typedef struct srv_sockets {
    srv_socket_id *ids;
    size_t n;
    int *locks;
    size_t nlocks;
} srv_sockets;

/** Records the socket files of cfg's unix addresses, right after the server bound them. */
void srv_sockets_record(srv_sockets *s, const srv_config *cfg);
/** Removes those files that are still the ones recorded (after the server stopped); clears s. */
void srv_sockets_remove(srv_sockets *s, const srv_config *cfg);

#endif /* CUZK_SERVER_INTERNAL_H */
