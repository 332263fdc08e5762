// rpc_client.cc - the unary gRPC client behind rpc_client.h: gRPC's callback API with a generic
// (ByteBuffer) stub, so no C++ protobuf and no generated C++ code are involved.
//
// DESIGN
//  threads:  gRPC's own run the completion callbacks; the application starts and waits for
//            calls from its threads.
//  objects:  one cli_rpc per channel (the channel, a generic stub, one mutex and condition
//            variable shared by all its calls); one cli_rpc_call per call, owned by the
//            application. gRPC uses the call's context, request and response buffers until
//            the completion callback has run, so cli_rpc_call_free cancels and then waits for
//            that callback before deleting.
//  lock order: cli_rpc.mu is a leaf; no gRPC function is called while it is held.
//  cancellation: ClientContext::TryCancel on free while in flight; the deadline otherwise.
#include "rpc_client.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <grpc/grpc.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

struct cli_rpc {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    std::mutex mu;
    std::condition_variable cv;
    size_t live = 0; // calls started and not yet freed
};

struct cli_rpc_call {
    cli_rpc *rpc = nullptr;
    grpc::ClientContext ctx;
    grpc::ByteBuffer req;
    grpc::ByteBuffer resp;
    grpc::Status status;
    std::string message; // status.error_message() returns a copy: keep one
    bool done = false;   // guarded by rpc->mu
    bool flat_ready = false;
    std::vector<uint8_t> flat;
};

namespace
{

const size_t kMaxMessage = (size_t)256 << 20;

} // namespace

extern "C" cuzk_err cli_rpc_open(cli_rpc **out, const char *addr, char *err, size_t cap)
{
    *out = nullptr;
    if (cap) {
        err[0] = '\0';
    }
    if (!addr || !addr[0]) {
        std::snprintf(err, cap, "empty address");
        return CUZK_E_INVAL;
    }
    std::string a(addr);
    bool is_unix = a.rfind("unix:", 0) == 0;
    if (is_unix ? a.size() <= 5 || a == "unix://" : a.find(':') == std::string::npos) {
        std::snprintf(err, cap, "address '%s' is neither unix:///path nor host:port", addr);
        return CUZK_E_INVAL;
    }
    cli_rpc *rpc = new (std::nothrow) cli_rpc();
    if (!rpc) {
        std::snprintf(err, cap, "out of memory");
        return CUZK_E_NOMEM;
    }
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize((int)kMaxMessage);
    args.SetMaxSendMessageSize((int)kMaxMessage);
    args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
    rpc->channel = grpc::CreateCustomChannel(a, grpc::InsecureChannelCredentials(), args);
    if (!rpc->channel) {
        std::snprintf(err, cap, "cannot create a channel to %s", addr);
        delete rpc;
        return CUZK_E_INVAL;
    }
    rpc->stub.reset(new grpc::GenericStub(rpc->channel));
    *out = rpc;
    return CUZK_OK;
}

extern "C" void cli_rpc_close(cli_rpc *rpc)
{
    if (!rpc) {
        return;
    }
    {
        std::unique_lock<std::mutex> lk(rpc->mu);
        rpc->cv.wait(lk, [rpc] { return rpc->live == 0; });
    }
    rpc->stub.reset();
    rpc->channel.reset();
    delete rpc;
}

extern "C" cli_rpc_call *cli_rpc_start(cli_rpc *rpc, const char *method, const uint8_t *req,
                                       size_t len, uint64_t timeout_ms)
{
    cli_rpc_call *call = new (std::nothrow) cli_rpc_call();
    if (!call) {
        return nullptr;
    }
    call->rpc = rpc;
    {
        static const uint8_t empty = 0;
        grpc::Slice slice(len ? req : &empty, len);
        call->req = grpc::ByteBuffer(&slice, 1);
    }
    if (timeout_ms) {
        call->ctx.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::milliseconds(timeout_ms));
    }
    {
        std::lock_guard<std::mutex> lk(rpc->mu);
        rpc->live++;
    }
    rpc->stub->UnaryCall(&call->ctx, method, grpc::StubOptions(), &call->req, &call->resp,
                         [call](grpc::Status st) {
                             cli_rpc *r = call->rpc;
                             std::lock_guard<std::mutex> lk(r->mu);
                             call->message = st.error_message();
                             call->status = std::move(st);
                             call->done = true;
                             r->cv.notify_all();
                         });
    return call;
}

extern "C" long cli_rpc_wait_any(cli_rpc *rpc, cli_rpc_call *const *calls, size_t n,
                                 uint64_t wait_ms)
{
    long found = -1;
    auto scan = [&]() {
        for (size_t i = 0; i < n; i++) {
            if (calls[i] && calls[i]->done) {
                found = (long)i;
                return true;
            }
        }
        return false;
    };
    std::unique_lock<std::mutex> lk(rpc->mu);
    if (wait_ms == CLI_RPC_FOREVER) {
        rpc->cv.wait(lk, scan);
    } else {
        rpc->cv.wait_for(lk, std::chrono::milliseconds(wait_ms), scan);
    }
    return found;
}

extern "C" bool cli_rpc_done(const cli_rpc_call *call)
{
    std::lock_guard<std::mutex> lk(call->rpc->mu);
    return call->done;
}

extern "C" int cli_rpc_code(const cli_rpc_call *call)
{
    return (int)call->status.error_code();
}

extern "C" const char *cli_rpc_message(const cli_rpc_call *call)
{
    return call->message.c_str();
}

extern "C" const uint8_t *cli_rpc_response(cli_rpc_call *call, size_t *len)
{
    static const uint8_t empty = 0;
    if (!call->flat_ready) {
        std::vector<grpc::Slice> slices;
        call->flat_ready = true;
        if (call->resp.Valid() && call->resp.Dump(&slices).ok()) {
            size_t total = 0;
            for (const grpc::Slice &s : slices) {
                total += s.size();
            }
            call->flat.resize(total);
            size_t off = 0;
            for (const grpc::Slice &s : slices) {
                if (s.size()) {
                    std::memcpy(call->flat.data() + off, s.begin(), s.size());
                }
                off += s.size();
            }
        }
        call->resp.Clear();
    }
    *len = call->flat.size();
    return call->flat.empty() ? &empty : call->flat.data();
}

extern "C" void cli_rpc_call_free(cli_rpc_call *call)
{
    if (!call) {
        return;
    }
    cli_rpc *rpc = call->rpc;
    bool done;
    {
        std::lock_guard<std::mutex> lk(rpc->mu);
        done = call->done;
    }
    if (!done) {
        call->ctx.TryCancel();
    }
    {
        std::unique_lock<std::mutex> lk(rpc->mu);
        rpc->cv.wait(lk, [call] { return call->done; });
    }
    delete call;
    std::lock_guard<std::mutex> lk(rpc->mu);
    rpc->live--;
    rpc->cv.notify_all();
}

extern "C" const char *cli_rpc_code_name(int code)
{
    static const char *const names[] = {
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    };
    if (code < 0 || (size_t)code >= sizeof(names) / sizeof(names[0])) {
        return "UNKNOWN_CODE";
    }
    return names[code];
}
