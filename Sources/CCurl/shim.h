#ifndef HERALD_CCURL_SHIM_H
#define HERALD_CCURL_SHIM_H
#include <curl/curl.h>

/// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, so Swift cannot call
/// them: one wrapper per argument type.

/// Options taking a long (flags, sizes, timeouts, enums).
static inline CURLcode
herald_curl_easy_setopt_long (CURL *handle, CURLoption option, long value)
{ return curl_easy_setopt (handle, option, value); }

/// Options taking a 64-bit size (CURLOPT_POSTFIELDSIZE_LARGE).
static inline CURLcode
herald_curl_easy_setopt_offset (CURL *handle, CURLoption option, curl_off_t value)
{ return curl_easy_setopt (handle, option, value); }

/// Options taking a string (libcurl copies it) or an object pointer (a header list, a
/// callback context, an error buffer), which must outlive the transfer.
static inline CURLcode
herald_curl_easy_setopt_pointer (CURL *handle, CURLoption option, const void *value)
{ return curl_easy_setopt (handle, option, value); }

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION: a function pointer must not travel as
/// a void pointer.
static inline CURLcode
herald_curl_easy_setopt_write_callback (CURL *handle, CURLoption option,
                                        curl_write_callback callback)
{ return curl_easy_setopt (handle, option, callback); }

/// Multi options taking a long.
static inline CURLMcode
herald_curl_multi_setopt_long (CURLM *handle, CURLMoption option, long value)
{ return curl_multi_setopt (handle, option, value); }

/// Information answered as a long (response code, connection counts).
static inline CURLcode
herald_curl_easy_getinfo_long (CURL *handle, CURLINFO info, long *value)
{ return curl_easy_getinfo (handle, info, value); }

#endif
