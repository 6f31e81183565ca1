import NIOCore
import NIOHTTP2
import NIOHTTPTypesHTTP2

/// Ends an HTTP/2 response on its last frame rather than on a frame of its own.
///
/// NIO's HTTP/2 codec sends a response's end as an extra, empty DATA frame. A client that has read
/// the whole Content-Length body before that frame arrives considers the exchange over and resets
/// the stream (libcurl does, now and then), and after 200 resets in 30 s swift-nio-http2 takes the
/// client for an attacker: GOAWAY ENHANCE_YOUR_CALM, and the requests in flight on that connection
/// fail. `make bench-sync`'s sync up of 10,000 records met it one run in five.
///
/// Only responses with a Content-Length are touched: their last frame is held until the end comes
/// (right after it, the body being whole). Streamed responses, such as the trainer page's live
/// feed, pass as they are.
final class EndStreamOnLastFrame: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The response's last frame so far, while it may turn out to be the last of all.
    private var held: (payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        switch payload {
        case let .headers(headers) where !headers.endStream && headers.headers.contains(name: "content-length"):
            writeHeld(context: context)
            held = (payload, promise)
        case let .data(frame) where frame.endStream && frame.data.readableBytes == 0:
            guard let (last, lastPromise) = held else {
                context.write(data, promise: promise)
                return
            }
            held = nil
            if let lastPromise, let promise { lastPromise.futureResult.cascade(to: promise) }
            context.write(wrapOutboundOut(Self.ending(last)), promise: lastPromise ?? promise)
        case let .data(frame) where held != nil && !frame.endStream:
            writeHeld(context: context)
            held = (payload, promise)
        default:
            writeHeld(context: context)
            context.write(data, promise: promise)
        }
    }

    /// A close of the output (or of all) sends the held frame first; Hummingbird closes the input
    /// alone when a request is cancelled, which concerns nothing held.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode != .input {
            writeHeld(context: context)
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }

    /// The stream went away (reset, connection lost) with a frame held: its write fails.
    func handlerRemoved(context: ChannelHandlerContext) {
        held?.promise?.fail(ChannelError.ioOnClosedChannel)
        held = nil
    }

    private func writeHeld(context: ChannelHandlerContext) {
        guard let (payload, promise) = held else { return }
        held = nil
        context.write(wrapOutboundOut(payload), promise: promise)
    }

    private static func ending(_ payload: HTTP2Frame.FramePayload) -> HTTP2Frame.FramePayload {
        switch payload {
        case var .headers(headers):
            headers.endStream = true
            return .headers(headers)
        case var .data(data):
            data.endStream = true
            return .data(data)
        default:
            return payload
        }
    }

    /// Put among a stream's HTTP handlers (after the codec; Hummingbird puts them on HTTP/1
    /// connections too), it places the frame handler just before NIO's HTTP/2 codec where there is
    /// one, and otherwise does nothing. (Asking an HTTP/1 socket for an HTTP/2 channel option
    /// would stop the process: NIO treats an unknown option as a programming error.)
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        /// Never read: everything passes through.
        typealias InboundIn = Never

        func handlerAdded(context: ChannelHandlerContext) {
            guard let codec = try? context.pipeline.syncOperations.handler(type: HTTP2FramePayloadToHTTPServerCodec.self) else { return }
            try? context.pipeline.syncOperations.addHandler(EndStreamOnLastFrame(), position: .before(codec))
        }
    }
}
