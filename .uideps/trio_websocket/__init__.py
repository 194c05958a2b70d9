# pylint: disable=useless-import-alias
from ._impl import (
    CloseReason as CloseReason,
    ConnectionClosed as ConnectionClosed,
    ConnectionRejected as ConnectionRejected,
    ConnectionTimeout as ConnectionTimeout,
    connect_websocket as connect_websocket,
    connect_websocket_url as connect_websocket_url,
    DisconnectionTimeout as DisconnectionTimeout,
    Endpoint as Endpoint,
    HandshakeError as HandshakeError,
    open_websocket as open_websocket,
    open_websocket_url as open_websocket_url,
    WebSocketConnection as WebSocketConnection,
    WebSocketRequest as WebSocketRequest,
    WebSocketServer as WebSocketServer,
    wrap_client_stream as wrap_client_stream,
    wrap_server_stream as wrap_server_stream,
    serve_websocket as serve_websocket,
)
from ._version import __version__ as __version__
