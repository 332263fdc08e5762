/* listen.c - the daemon's listen addresses before and after the RPC server (internal.h).
 *
 * Unix sockets: gRPC unlinks whatever socket file is at a path before binding it, so a second
 * daemon would silently take over the first one's socket. Before the server starts, each path
 * is checked: nothing there is fine; a socket that accepts a connection belongs to a live
 * process, and start-up is refused; a socket that refuses (ECONNREFUSED) is stale, left by a
 * process that died, and is removed; anything else (a regular file, no permission) is refused.
 * After the server stops, the daemon removes the socket files it made (only if the file at the
 * path is still the one it bound: same device and inode).
 *
 * Exposure: there is no authentication (docs/daemon.md, "Who can use the daemon"): anyone who
 * can connect can submit, cancel and evict. A TCP address that is not loopback and unix sockets
 * that every local user may connect to (socket mode with o+w, abstract sockets) get a WARN line
 * at start-up.
 */
#include "server/internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/log.h"

const char *srv_unix_path(const char *addr)
{
    if (strncmp(addr, "unix://", 7) == 0) {
        return addr + 7;
    }
    if (strncmp(addr, "unix:", 5) == 0) {
        return addr + 5;
    }
    return NULL;
}

/* Creates the missing parent directories of a unix socket path (as the Rust daemon does). */
static void make_socket_dir(const char *path)
{
    char dir[1024];

    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) {
        return;
    }
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    }
    if (mkdir(dir, 0755) == 0) {
        CZ_LOG(CZ_LOG_INFO, "event=mkdir dir=%s", dir);
    }
}

/* Tries to connect to the unix socket at path. Returns 0 when something accepts (or its
 * backlog is full: it is alive), else the errno of the attempt. */
static int probe_socket(const char *path)
{
    struct sockaddr_un sa;
    int fd, rc, e;

    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        return ENAMETOOLONG;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return errno;
    }
    rc = connect(fd, (const struct sockaddr *)&sa, sizeof(sa));
    e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN || e == EINPROGRESS) {
        return 0;
    }
    return e;
}

/* Makes path usable for a new socket (see the file comment). */
static cuzk_err claim_socket_path(const char *addr, const char *path, cz_diag *dg)
{
    struct stat st;

    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) {
            return CUZK_OK;
        }
        return cz_fail(dg, CUZK_E_IO, "cannot check %s: %s", path, strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "%s exists and is not a socket; remove it or choose another daemon.listen",
                       path);
    }
    int e = probe_socket(path);
    if (e == 0) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "another process listens on %s; stop it or choose another daemon.listen",
                       addr);
    }
    if (e != ECONNREFUSED) {
        return cz_fail(dg, CUZK_E_IO, "cannot check whether a process listens on %s: %s", addr,
                       strerror(e));
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        return cz_fail(dg, CUZK_E_IO, "cannot remove the stale socket %s: %s", path,
                       strerror(errno));
    }
    CZ_LOG(CZ_LOG_INFO, "event=stale_socket path=%s action=removed", path);
    return CUZK_OK;
}

/* True for "localhost", 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. */
static bool host_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;

    if (strcasecmp(host, "localhost") == 0) {
        return true;
    }
    if (inet_pton(AF_INET, host, &a4) == 1) {
        return (ntohl(a4.s_addr) >> 24) == 127;
    }
    if (inet_pton(AF_INET6, host, &a6) == 1) {
        return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
    }
    return false;
}

/* The host (brackets of "[v6]" removed; "" for every interface) and the port of a TCP listen
 * address ("host:port", "[v6]:port", optionally "ipv4:"/"ipv6:" prefixed). False when there is
 * no ':' or the host is too long. */
static bool split_host_port(const char *addr, char host[256], const char **port)
{
    const char *colon;

    if (strncmp(addr, "ipv4:", 5) == 0 || strncmp(addr, "ipv6:", 5) == 0) {
        addr += 5;
    }
    colon = strrchr(addr, ':');
    if (!colon || (size_t)(colon - addr) >= 256) {
        return false;
    }
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        memmove(host, host + 1, n - 2);
        host[n - 2] = '\0';
    }
    *port = colon + 1;
    return true;
}

/* True when a TCP listen address binds only loopback. An empty host means every interface. */
static bool tcp_is_loopback(const char *addr)
{
    char host[256];
    const char *port;
    return split_host_port(addr, host, &port) && host[0] != '\0' && host_is_loopback(host);
}

/* The errno of binding a TCP socket to host:port now (0 when it binds; the socket is closed at
 * once), or EINVAL / the resolver's failure mapped to ENOENT. */
static int try_bind(const char *host, const char *port)
{
    struct addrinfo hints, *ai = NULL;
    int e = 0, one = 1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if (getaddrinfo(host[0] ? host : NULL, port, &hints, &ai) != 0 || !ai) {
        return ENOENT;
    }
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
        e = errno;
    } else {
        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        e = bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
        close(fd);
    }
    freeaddrinfo(ai);
    return e;
}

void srv_listen_diagnose(const srv_config *cfg, char *msg, size_t cap)
{
    for (size_t i = 0; i < cfg->nlisten; i++) {
        char host[256];
        const char *port, *addr = cfg->listen[i];
        if (srv_unix_path(addr) || strncmp(addr, "unix-abstract:", 14) == 0 ||
            !split_host_port(addr, host, &port)) {
            continue;
        }
        int e = try_bind(host, port);
        if (e == ENOENT) {
            snprintf(msg, cap, "cannot listen on %s: the host does not resolve", addr);
            return;
        }
        if (e) {
            snprintf(msg, cap, "cannot listen on %s: %s", addr, strerror(e));
            return;
        }
    }
}

static void warn_exposure(const srv_config *cfg)
{
    unsigned mode = (unsigned)cfg->socket_mode & 0777u;

    for (size_t i = 0; i < cfg->nlisten; i++) {
        const char *addr = cfg->listen[i];
        if (srv_unix_path(addr)) {
            if (mode & 0002u) {
                CZ_LOG(CZ_LOG_WARN,
                       "event=exposed_listen addr=%s socket_mode=0%03o reason=\"world-writable: "
                       "every local user can submit, cancel and evict (no authentication)\" "
                       "hint=\"daemon.socket_mode = 0660 and a group for the clients\"",
                       addr, mode);
            }
        } else if (strncmp(addr, "unix-abstract:", 14) == 0) {
            CZ_LOG(CZ_LOG_WARN,
                   "event=exposed_listen addr=%s reason=\"abstract sockets have no permissions: "
                   "every local user can submit, cancel and evict (no authentication)\" "
                   "hint=\"a unix socket file with daemon.socket_mode = 0660\"",
                   addr);
        } else if (!tcp_is_loopback(addr)) {
            CZ_LOG(CZ_LOG_WARN,
                   "event=exposed_listen addr=%s reason=\"not loopback: anyone who can reach it "
                   "can submit, cancel and evict (no authentication)\" hint=\"a unix socket with "
                   "daemon.socket_mode = 0660 and a group, or 127.0.0.1\"",
                   addr);
        }
    }
}

/* Takes the exclusive lock on path.lock (created 0600 when missing; never removed, so that a
 * lock is always on the one file) into *fd. The lock lives as long as the descriptor. */
static cuzk_err lock_socket_path(const char *addr, const char *path, int *fd, cz_diag *dg)
{
    char lock[1100];

    if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >= sizeof(lock)) {
        return cz_fail(dg, CUZK_E_INVAL, "socket path too long: %s", path);
    }
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (*fd < 0) {
        return cz_fail(dg, CUZK_E_IO, "cannot open the lock file %s: %s", lock, strerror(errno));
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(*fd);
        *fd = -1;
        if (e == EWOULDBLOCK) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "another process listens on %s (it holds %s); stop it or choose "
                           "another daemon.listen",
                           addr, lock);
        }
        return cz_fail(dg, CUZK_E_IO, "cannot lock %s: %s", lock, strerror(e));
    }
    return CUZK_OK;
}

cuzk_err srv_listen_prepare(const srv_config *cfg, srv_sockets *s, cz_diag *dg)
{
    warn_exposure(cfg);
    s->locks = cz_malloc((cfg->nlisten ? cfg->nlisten : 1) * sizeof(int));
    if (!s->locks) {
        return cz_fail(dg, CUZK_E_NOMEM, "socket locks");
    }
    s->nlocks = cfg->nlisten;
    for (size_t i = 0; i < cfg->nlisten; i++) {
        s->locks[i] = -1;
    }
    for (size_t i = 0; i < cfg->nlisten; i++) {
        const char *path = srv_unix_path(cfg->listen[i]);
        if (!path) {
            continue;
        }
        make_socket_dir(path);
        cuzk_err err = lock_socket_path(cfg->listen[i], path, &s->locks[i], dg);
        if (err == CUZK_OK) {
            err = claim_socket_path(cfg->listen[i], path, dg);
        }
        if (err != CUZK_OK) {
            return err;
        }
    }
    return CUZK_OK;
}

void srv_sockets_record(srv_sockets *s, const srv_config *cfg)
{
    s->ids = cz_calloc(cfg->nlisten ? cfg->nlisten : 1, sizeof(*s->ids));
    if (!s->ids) {
        return; /* the files are then left behind, as gRPC leaves them */
    }
    s->n = cfg->nlisten;
    for (size_t i = 0; i < cfg->nlisten; i++) {
        const char *path = srv_unix_path(cfg->listen[i]);
        struct stat st;
        if (path && lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
            s->ids[i].made = true;
            s->ids[i].dev = (uint64_t)st.st_dev;
            s->ids[i].ino = (uint64_t)st.st_ino;
        }
    }
}

void srv_sockets_remove(srv_sockets *s, const srv_config *cfg)
{
    for (size_t i = 0; i < s->n && i < cfg->nlisten; i++) {
        const char *path = srv_unix_path(cfg->listen[i]);
        struct stat st;
        if (!path || !s->ids[i].made || lstat(path, &st) != 0) {
            continue;
        }
        if ((uint64_t)st.st_dev == s->ids[i].dev && (uint64_t)st.st_ino == s->ids[i].ino &&
            unlink(path) == 0) {
            CZ_LOG(CZ_LOG_INFO, "event=socket_removed path=%s", path);
        }
    }
    for (size_t i = 0; i < s->nlocks; i++) {
        if (s->locks[i] >= 0) {
            close(s->locks[i]); /* after the socket went: the next daemon finds it gone */
        }
    }
    cz_free(s->locks);
    cz_free(s->ids);
    memset(s, 0, sizeof(*s));
}
