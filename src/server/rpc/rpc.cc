// rpc.cc - the unary gRPC server behind rpc.h: gRPC's callback API with a generic
// (ByteBuffer) service, so no C++ protobuf and no generated C++ code are involved.
//
// DESIGN
//  threads:  gRPC's own (its callback executor runs every reactor method and the C handler);
//            the application finishes calls from any thread.
//  objects:  one Reactor per call, created by gRPC (CallbackGenericService::CreateReactor) and
//            deleted in OnDone. A srv_call is the C handle: reference-counted (one reference
//            for gRPC, released in OnDone; one for the application, released by
//            srv_call_reply / srv_call_fail), so a late reply after the reactor is gone only
//            touches memory that is still ours.
//  finish:   exactly one Finish per call: whoever flips srv_call.finished under its mutex
//            first (the application's reply, OnReadDone without a message, or OnCancel) issues
//            it, outside the mutex (gRPC may run OnDone inline, which takes the mutex). OnDone
//            cannot precede Finish, so the reactor outlives that unlocked call.
//  lock order: srv_call.mu and srv_rpc.live_mu are leaves; no gRPC call is made under either.
//  receiving: calls of the gated methods (those whose requests may be large) read their
//            request at most max_reading at a time; the others wait in srv_rpc.waiting before
//            any of their message is read (gRPC's flow control then holds the client back, so
//            the bytes inside gRPC stay bounded). A slot is given back once the handler has
//            returned (the request and its decoded copies are gone by then), and the oldest
//            waiting call starts its read. Reactor.rstate (under live_mu) tells where a gated
//            call is: WAITING (in the queue), STARTING (popped, StartRead not yet issued: only
//            the thread that popped it may finish it, after the StartRead, so that OnDone
//            cannot delete it under that thread), READING.
//  shutdown: srv_rpc_shutdown refuses new calls (UNAVAILABLE), waits up to the grace for open
//            calls to be finished by the application, then finishes the rest itself with
//            UNAVAILABLE (calls waiting to read included), and only then stops the server
//            (Server::Shutdown; its own cancellation would reach clients as CANCELLED or a
//            reset stream); we then wait until every reactor has reached OnDone.
#include "server/rpc/rpc.h"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <grpc/grpc.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

namespace {

class Reactor;

}  // namespace

struct srv_call {
    std::mutex mu;
    Reactor *reactor = nullptr;  // nullptr once OnDone ran
    bool finished = false;       // a Finish has been issued
    std::atomic<bool> cancelled{false};
    std::atomic<int> refs{2};
};

struct srv_rpc {
    std::vector<std::string> methods;
    srv_rpc_handler handler = nullptr;
    void *ctx = nullptr;
    std::unique_ptr<grpc::CallbackGenericService> service;
    std::unique_ptr<grpc::Server> server;
    std::vector<int> ports;
    std::vector<bool> gated;  // per method: its reads count against max_reading
    size_t max_reading = 0;   // 0 = no limit
    std::mutex live_mu;
    std::condition_variable live_cv;
    size_t live = 0;               // reactors not yet done
    std::set<srv_call *> calls;    // calls whose reactor is not yet done
    size_t reading = 0;            // gated calls reading their request (or in the handler)
    std::deque<Reactor *> waiting; // gated calls waiting for a slot, oldest first
    bool stopping = false;         // new calls are refused; no waiting call starts
    bool shut_down = false;
};

namespace {

void call_release(srv_call *call)
{
    if (call->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        delete call;
    }
}

const char kStopping[] = "cuzkd is stopping";

void read_done(srv_rpc *rpc);
void unqueue(srv_rpc *rpc, Reactor *r);

class Reactor final : public grpc::ServerGenericBidiReactor {
  public:
    enum RState { R_FREE, R_WAITING, R_STARTING, R_READING };

    Reactor(srv_rpc *rpc, grpc::GenericCallbackServerContext *ctx) : rpc_(rpc)
    {
        const std::string &path = ctx->method();
        for (size_t i = 0; i < rpc_->methods.size(); i++) {
            if (rpc_->methods[i] == path) {
                method_ = i;
                break;
            }
        }
        bool stopping, start = true;
        {
            std::lock_guard<std::mutex> lk(rpc_->live_mu);
            rpc_->live++;
            stopping = rpc_->stopping;
            if (!stopping && method_ != SIZE_MAX) {
                call_ = new srv_call();
                call_->reactor = this;
                rpc_->calls.insert(call_);
                if (rpc_->max_reading && rpc_->gated[method_]) {
                    gated_ = true;
                    if (rpc_->reading < rpc_->max_reading) {
                        rpc_->reading++;
                        rstate_ = R_READING;
                    } else {
                        rstate_ = R_WAITING;
                        rpc_->waiting.push_back(this);
                        start = false;
                    }
                }
            }
        }
        if (stopping) {
            Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, kStopping));
        } else if (method_ == SIZE_MAX) {
            Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "unknown method " + path));
        } else if (start) {
            StartRead(&req_);
        }
    }

    void OnReadDone(bool ok) override
    {
        srv_rpc *rpc = rpc_; // Deliver may end in OnDone, which deletes this
        bool gated = gated_;
        Deliver(ok);
        if (gated) {
            read_done(rpc);
        }
    }

    void OnCancel() override
    {
        if (!call_) {
            return;
        }
        call_->cancelled.store(true);
        {
            std::lock_guard<std::mutex> lk(rpc_->live_mu);
            if (rstate_ == R_STARTING) {
                pending_ = grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
                has_pending_ = true; // finished by the thread starting its read
                return;
            }
            if (rstate_ == R_WAITING) {
                unqueue(rpc_, this);
            }
        }
        FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
    }

    void OnDone() override
    {
        srv_rpc *rpc = rpc_;
        if (call_) {
            {
                std::lock_guard<std::mutex> lk(call_->mu);
                call_->reactor = nullptr;
            }
            {
                std::lock_guard<std::mutex> lk(rpc->live_mu);
                rpc->calls.erase(call_);
                if (rstate_ == R_WAITING) {
                    unqueue(rpc, this);
                }
            }
            call_release(call_);
        }
        delete this;
        std::lock_guard<std::mutex> lk(rpc->live_mu);
        rpc->live--;
        rpc->live_cv.notify_all();
    }

    // Issues Finish unless somebody already did.
    void FinishOnce(grpc::Status st)
    {
        if (Claim(call_)) {
            Finish(std::move(st));
        }
    }

    // The reactor when the caller won the right to finish the call, else nullptr.
    static Reactor *Claim(srv_call *call)
    {
        std::lock_guard<std::mutex> lk(call->mu);
        if (call->finished || !call->reactor) {
            return nullptr;
        }
        call->finished = true;
        return call->reactor;
    }

    void Reply(const uint8_t *resp, size_t len)
    {
        grpc::Slice slice(resp, len);
        resp_ = grpc::ByteBuffer(&slice, 1);
        StartWriteAndFinish(&resp_, grpc::WriteOptions(), grpc::Status::OK);
    }

    // A waiting call popped by read_done (rstate_ STARTING): starts its read, then finishes it
    // if it was cancelled or swept meanwhile. Once the read is started it may complete on
    // another thread and the call end (OnDone deletes this): this is touched afterwards only
    // under live_mu while the call is still listed (OnDone unlists it under that lock before
    // deleting this), and a reference of our own keeps the call itself alive.
    void StartQueuedRead()
    {
        srv_rpc *rpc = rpc_;
        srv_call *call = call_;
        bool fin = false;
        grpc::Status st;

        call->refs.fetch_add(1, std::memory_order_relaxed);
        StartRead(&req_);
        {
            std::lock_guard<std::mutex> lk(rpc->live_mu);
            if (rpc->calls.count(call)) { // OnDone erases it under live_mu before `delete this`
                rstate_ = R_READING;
                fin = has_pending_;
                st = pending_;
            }
        }
        if (fin) {
            Reactor *r = Claim(call); // once claimed, the call lives until its Finish
            if (r) {
                r->Finish(std::move(st));
            }
        }
        call_release(call);
    }

    RState rstate_ = R_FREE; // under rpc_->live_mu
    bool has_pending_ = false;
    grpc::Status pending_;

  private:
    // Hands the request to the handler (or finishes the call without one).
    void Deliver(bool ok)
    {
        // Without a request the handler never gets the call: its reference is dropped here,
        // through a copy of the pointer (Finish may run OnDone, which deletes this, at once).
        srv_call *call = call_;
        if (!ok) {
            FinishOnce(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
            call_release(call);
            return;
        }
        std::vector<grpc::Slice> slices;
        if (!req_.Dump(&slices).ok()) {
            FinishOnce(grpc::Status(grpc::StatusCode::INTERNAL, "cannot read the request"));
            call_release(call);
            return;
        }
        std::vector<uint8_t> flat;
        const uint8_t *data = nullptr;
        size_t len = 0;
        if (slices.size() == 1) {
            data = slices[0].begin();
            len = slices[0].size();
        } else {
            for (const grpc::Slice &s : slices) {
                len += s.size();
            }
            flat.resize(len);
            size_t off = 0;
            for (const grpc::Slice &s : slices) {
                if (s.size()) {
                    std::memcpy(flat.data() + off, s.begin(), s.size());
                }
                off += s.size();
            }
            data = flat.data();
        }
        req_.Clear(); // `slices` keeps the bytes alive
        static const uint8_t empty = 0;
        rpc_->handler(rpc_->ctx, call, method_, data ? data : &empty, len);
    }

    srv_rpc *rpc_;
    srv_call *call_ = nullptr;
    size_t method_ = SIZE_MAX;
    bool gated_ = false;
    grpc::ByteBuffer req_;
    grpc::ByteBuffer resp_;
};

// A gated call's read (and handler) ended: its slot goes to the oldest waiting calls.
void read_done(srv_rpc *rpc)
{
    std::vector<Reactor *> start;
    {
        std::lock_guard<std::mutex> lk(rpc->live_mu);
        rpc->reading--;
        while (!rpc->stopping && rpc->reading < rpc->max_reading && !rpc->waiting.empty()) {
            Reactor *r = rpc->waiting.front();
            rpc->waiting.pop_front();
            r->rstate_ = Reactor::R_STARTING;
            rpc->reading++;
            start.push_back(r);
        }
    }
    for (Reactor *r : start) {
        r->StartQueuedRead();
    }
}

// Takes r off the waiting queue (live_mu held).
void unqueue(srv_rpc *rpc, Reactor *r)
{
    for (auto it = rpc->waiting.begin(); it != rpc->waiting.end(); ++it) {
        if (*it == r) {
            rpc->waiting.erase(it);
            break;
        }
    }
    r->rstate_ = Reactor::R_FREE;
}

class Service final : public grpc::CallbackGenericService {
  public:
    explicit Service(srv_rpc *rpc) : rpc_(rpc) {}

    grpc::ServerGenericBidiReactor *CreateReactor(grpc::GenericCallbackServerContext *ctx) override
    {
        return new Reactor(rpc_, ctx);
    }

  private:
    srv_rpc *rpc_;
};

// "unix:///abs/path" or "unix:path" -> the file name; "" for other schemes.
std::string unix_path(const std::string &addr)
{
    if (addr.rfind("unix://", 0) == 0) {
        return addr.substr(7);
    }
    if (addr.rfind("unix:", 0) == 0) {
        return addr.substr(5);
    }
    return std::string();
}

}  // namespace

extern "C" cuzk_err srv_rpc_start(srv_rpc **out, const srv_rpc_opts *opts, char *err_msg,
                                  size_t cap)
{
    *out = nullptr;
    if (cap) {
        err_msg[0] = '\0';
    }
    if (!opts || !opts->handler || opts->nlisten == 0 || opts->nmethods == 0) {
        std::snprintf(err_msg, cap, "rpc: need a handler, methods and listen addresses");
        return CUZK_E_INVAL;
    }
    size_t limit = opts->max_message_bytes ? opts->max_message_bytes : (size_t)256 << 20;
    if (limit > (size_t)INT32_MAX) {
        limit = INT32_MAX;
    }
    srv_rpc *rpc = new (std::nothrow) srv_rpc();
    if (!rpc) {
        std::snprintf(err_msg, cap, "rpc: out of memory");
        return CUZK_E_NOMEM;
    }
    for (size_t i = 0; i < opts->nmethods; i++) {
        rpc->methods.emplace_back(opts->methods[i]);
    }
    rpc->handler = opts->handler;
    rpc->ctx = opts->ctx;
    rpc->max_reading = opts->max_reading;
    for (size_t i = 0; i < opts->nmethods; i++) {
        rpc->gated.push_back(!opts->gated || opts->gated[i]);
    }
    rpc->service.reset(new Service(rpc));
    rpc->ports.assign(opts->nlisten, 0);

    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize((int)limit);
    builder.SetMaxSendMessageSize((int)limit);
    // Two daemons must not silently share a TCP port.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    for (size_t i = 0; i < opts->nlisten; i++) {
        builder.AddListeningPort(opts->listen[i], grpc::InsecureServerCredentials(),
                                 &rpc->ports[i]);
    }
    builder.RegisterCallbackGenericService(rpc->service.get());

    // Unix sockets are created with the mode asked for, not whatever the umask gives.
    unsigned mode = opts->socket_mode & 0777u;
    mode_t old_umask = umask((mode_t)(~mode & 0777u));
    rpc->server = builder.BuildAndStart();
    umask(old_umask);

    bool ok = rpc->server != nullptr;
    for (size_t i = 0; ok && i < opts->nlisten; i++) {
        std::string path = unix_path(opts->listen[i]);
        if (path.empty() && rpc->ports[i] == 0) {
            std::snprintf(err_msg, cap, "cannot listen on %s", opts->listen[i]);
            ok = false;
        } else if (!path.empty()) {
            if (chmod(path.c_str(), (mode_t)mode) != 0) {
                std::snprintf(err_msg, cap, "cannot set the mode of socket %s", path.c_str());
                ok = false;
            }
            rpc->ports[i] = 0;
        }
    }
    if (!ok) {
        if (cap && !err_msg[0]) {
            std::snprintf(err_msg, cap, "cannot listen on the configured addresses");
        }
        if (rpc->server) {
            rpc->server->Shutdown();
        }
        srv_rpc_free(rpc);
        return CUZK_E_IO;
    }
    *out = rpc;
    return CUZK_OK;
}

extern "C" int srv_rpc_port(const srv_rpc *rpc, size_t i)
{
    return i < rpc->ports.size() ? rpc->ports[i] : 0;
}

extern "C" void srv_call_reply(srv_call *call, const uint8_t *resp, size_t len)
{
    if (Reactor *r = Reactor::Claim(call)) {
        r->Reply(resp, len);
    }
    call_release(call);
}

extern "C" void srv_call_fail(srv_call *call, srv_code code, const char *msg)
{
    if (Reactor *r = Reactor::Claim(call)) {
        r->Finish(grpc::Status(static_cast<grpc::StatusCode>(code), msg ? msg : ""));
    }
    call_release(call);
}

extern "C" bool srv_call_is_cancelled(const srv_call *call)
{
    return call->cancelled.load();
}

// Finishes every open call with UNAVAILABLE (live_mu held; the Finish calls are left to the
// caller, outside the lock): claimed reactors go to `out`; a call whose queued read is being
// started is finished by the thread starting it.
static void sweep_locked(srv_rpc *rpc, std::vector<Reactor *> &out)
{
    for (srv_call *c : rpc->calls) {
        Reactor *r;
        {
            std::lock_guard<std::mutex> lk(c->mu);
            r = c->reactor; // OnDone, which deletes it, waits for live_mu
        }
        if (!r) {
            continue;
        }
        if (r->rstate_ == Reactor::R_STARTING) {
            r->pending_ = grpc::Status(grpc::StatusCode::UNAVAILABLE, kStopping);
            r->has_pending_ = true;
            continue;
        }
        if (r->rstate_ == Reactor::R_WAITING) {
            unqueue(rpc, r);
        }
        if (Reactor::Claim(c)) {
            c->cancelled.store(true);
            out.push_back(r);
        }
    }
}

extern "C" void srv_rpc_shutdown(srv_rpc *rpc, unsigned grace_ms)
{
    if (!rpc || rpc->shut_down) {
        return;
    }
    rpc->shut_down = true;
    std::vector<Reactor *> sweep;
    {
        std::unique_lock<std::mutex> lk(rpc->live_mu);
        rpc->stopping = true;
        rpc->live_cv.wait_for(lk, std::chrono::milliseconds(grace_ms),
                              [rpc] { return rpc->calls.empty(); });
        sweep_locked(rpc, sweep);
    }
    for (Reactor *r : sweep) {
        r->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, kStopping));
    }
    // Every call is finished or being finished: this only lets the statuses go out.
    rpc->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    std::unique_lock<std::mutex> lk(rpc->live_mu);
    rpc->live_cv.wait_for(lk, std::chrono::seconds(30), [rpc] { return rpc->live == 0; });
}

extern "C" void srv_rpc_free(srv_rpc *rpc)
{
    if (!rpc) {
        return;
    }
    if (rpc->server && !rpc->shut_down) {
        srv_rpc_shutdown(rpc, 0);
    }
    rpc->server.reset();
    rpc->service.reset();
    delete rpc;
}
