#ifndef HERALD_CMICROHTTPD_SHIM_H
#define HERALD_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

/// MHD_start_daemon is variadic; Swift calls this wrapper with an option array
/// terminated by MHD_OPTION_END. The listen socket is passed in the options, so the
/// port argument is unused (0). The accept policy and the access handler share `handler_cls`.
static inline struct MHD_Daemon *
herald_mhd_start_daemon (unsigned int flags,
                         MHD_AcceptPolicyCallback accept_policy,
                         MHD_AccessHandlerCallback handler,
                         void *handler_cls,
                         struct MHD_OptionItem *options)
{
  return MHD_start_daemon (flags, 0, accept_policy, handler_cls, handler, handler_cls,
                           MHD_OPTION_ARRAY, options,
                           MHD_OPTION_END);
}

/// The socket of a connection, or -1 (MHD_get_connection_info is variadic).
static inline int
herald_mhd_connection_fd (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return (NULL == info) ? -1 : info->connect_fd;
}

/// The socket context set in the connection-notify callback, or NULL
/// (MHD_get_connection_info is variadic).
static inline void *
herald_mhd_socket_context (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return (NULL == info) ? NULL : info->socket_context;
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *
herald_mhd_client_address (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return (NULL == info) ? NULL : info->client_addr;
}

/// The HTTP status of the response queued on a connection, or 0 if none is queued
/// (MHD_get_connection_info is variadic).
static inline unsigned int
herald_mhd_queued_status (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_HTTP_STATUS);
  return (NULL == info) ? 0 : info->http_status;
}

#endif
