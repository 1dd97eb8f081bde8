import Foundation
import HeraldPush
import HeraldServerModel

/// The HTTP contract as an OpenAPI 3.1 document, served at `/openapi.json`.
enum OpenAPIDocument {
    /// The document as served: ``json`` with a 503 `Unavailable` answer on every operation that
    /// does not name its own, since any request can run out of time and any store call can find
    /// PostgreSQL unreachable, and a 429 `RateLimited` answer on every publisher operation (all
    /// of them take from the API key's call rate).
    static let served: String = {
        guard let data = json.data(using: .utf8),
            var document = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            var paths = document["paths"] as? [String: [String: Any]]
        else { preconditionFailure("openapi.json is not a JSON object with paths") }
        for (path, var operations) in paths {
            for (method, value) in operations {
                guard var operation = value as? [String: Any], var responses = operation["responses"] as? [String: Any]
                else { continue }
                if responses["503"] == nil { responses["503"] = ["$ref": "#/components/responses/Unavailable"] }
                let security = operation["security"] as? [[String: Any]] ?? []
                if security.contains(where: { $0["apiKey"] != nil }), responses["429"] == nil {
                    responses["429"] = ["$ref": "#/components/responses/RateLimited"]
                }
                operation["responses"] = responses
                operations[method] = operation
            }
            paths[path] = operations
        }
        document["paths"] = paths
        guard
            let served = try? JSONSerialization.data(
                withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        else { preconditionFailure("openapi.json cannot be written back") }
        return String(decoding: served, as: UTF8.self)
    }()

    static let json: String = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Herald",
            "version": "1.0.0",
            "description": "Notification server. JSON, camelCase, RFC 3339 times, opaque cursors. Every error is {\"error\":{\"code\":\"snake_case\",\"message\":\"text\"}} (4xx: bad input; 5xx: a bug, except 503 timeout, not_ready and database_unavailable, which are worth retrying). A known path answers 405 method_not_allowed for a method it lacks; a body over the size limit answers 413 payload_too_large."
          },
          "servers": [{"url": "http://127.0.0.1:8080"}],
          "tags": [
            {"name": "operations"},
            {"name": "inbox"},
            {"name": "preferences"},
            {"name": "devices"},
            {"name": "events"},
            {"name": "app-config"},
            {"name": "publisher"}
          ],
          "paths": {
            "/healthz": {
              "get": {
                "operationId": "health",
                "tags": ["operations"],
                "summary": "Liveness.",
                "security": [],
                "responses": {
                  "200": {
                    "description": "{\"status\":\"ok\"}",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
                  }
                }
              }
            },
            "/readyz": {
              "get": {
                "operationId": "ready",
                "tags": ["operations"],
                "summary": "Ready when the database answers.",
                "security": [],
                "responses": {
                  "200": {
                    "description": "{\"status\":\"ready\"}",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
                  },
                  "503": {"$ref": "#/components/responses/ServiceUnavailable"}
                }
              }
            },
            "/metrics": {
              "get": {
                "operationId": "metrics",
                "tags": ["operations"],
                "summary": "Prometheus text exposition.",
                "security": [],
                "responses": {"200": {"description": "Metrics.", "content": {"text/plain": {"schema": {"type": "string"}}}}}
              }
            },
            "/openapi.json": {
              "get": {
                "operationId": "openAPI",
                "tags": ["operations"],
                "summary": "This document.",
                "security": [],
                "responses": {
                  "200": {
                    "description": "OpenAPI 3.1 document.",
                    "content": {"application/json": {"schema": {"type": "object"}}}
                  }
                }
              }
            },
            "/v1/me/notifications": {
              "get": {
                "operationId": "listNotifications",
                "tags": ["inbox"],
                "summary": "Inbox page, newest first; never deleted or admin.* rows.",
                "security": [{"userToken": []}],
                "parameters": [
                  {
                    "name": "limit",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
                  },
                  {
                    "name": "cursor",
                    "in": "query",
                    "description": "nextCursor of the previous page.",
                    "schema": {"type": "string"}
                  },
                  {
                    "name": "category",
                    "in": "query",
                    "description": "A catalog category id; empty or all for every type.",
                    "schema": {"type": "string"}
                  }
                ],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NotificationPage"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/notifications/seen": {
              "post": {
                "operationId": "markAllSeen",
                "tags": ["inbox"],
                "summary": "Marks all seen: unseen drops to 0, unread stays.",
                "security": [{"userToken": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Counts"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/notifications/{id}": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "get": {
                "operationId": "getNotification",
                "tags": ["inbox"],
                "summary": "The notification with its detail.",
                "security": [{"userToken": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InboxNotification"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              },
              "delete": {
                "operationId": "deleteNotification",
                "tags": ["inbox"],
                "summary": "Soft delete, idempotent.",
                "security": [{"userToken": []}],
                "responses": {
                  "204": {"description": "Done (idempotent)."},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/me/notifications/{id}/read": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "post": {
                "operationId": "markRead",
                "tags": ["inbox"],
                "summary": "Sets readAt (idempotent).",
                "security": [{"userToken": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InboxNotification"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/me/counts": {
              "get": {
                "operationId": "counts",
                "tags": ["inbox"],
                "summary": "Unread and unseen counts.",
                "security": [{"userToken": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Counts"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/stream": {
              "get": {
                "operationId": "stream",
                "tags": ["inbox"],
                "summary": "Live updates as Server-Sent Events.",
                "security": [{"userToken": []}],
                "parameters": [
                  {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "description": "Resume after this event id: the last id the stream sent, its opening frame's included.",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"}
                  },
                  {
                    "name": "lastEventId",
                    "in": "query",
                    "description": "Same as Last-Event-ID, for clients that cannot set headers.",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"}
                  }
                ],
                "responses": {
                  "200": {
                    "description": "text/event-stream. Without Last-Event-ID it opens with a frame without data, `id: <the user's newest event sequence, 0 when none>` and `retry: 3000`, which sets the client's last event id without dispatching an event: a client that drops before any event arrived resumes from there and misses nothing. With Last-Event-ID it replays the logged events after it (when more than 500 were missed it sends one `reset` event instead: refetch the inbox), then `retry: 3000`. Then it sends `counts` and goes live. Events: `notification.created` (id: event sequence; data: the InboxNotification JSON), `notification.updated` (id: event sequence; data: {id, readAt, seenAt, deleted}), `counts` (no id; data: Counts JSON, the current counts after every change), `reset` (id: the latest sequence; data: {reason}). A `: heartbeat` comment every 15 s. The stream ends when the user token expires; a user holds at most 16 streams (a 17th closes the oldest).",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/preferences": {
              "get": {
                "operationId": "getPreferences",
                "tags": ["preferences"],
                "summary": "Preferences; defaults all true, decision null.",
                "security": [{"userToken": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Preferences"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              },
              "patch": {
                "operationId": "patchPreferences",
                "tags": ["preferences"],
                "summary": "Merges; keeps what it does not name.",
                "security": [{"userToken": []}],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PreferencesPatch"}}}
                },
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Preferences"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"}
                }
              }
            },
            "/v1/me/permission": {
              "post": {
                "operationId": "recordPermission",
                "tags": ["preferences"],
                "summary": "Records the OS decision; globalEnabled follows.",
                "security": [{"userToken": []}],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PermissionDecision"}}}
                },
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Preferences"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/permission/sync": {
              "post": {
                "operationId": "syncPermission",
                "tags": ["preferences"],
                "summary": "Start-up sync of the OS status (SYNC-01..03).",
                "security": [{"userToken": []}],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PermissionSync"}}}
                },
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Preferences"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/devices": {
              "post": {
                "operationId": "registerDevice",
                "tags": ["devices"],
                "summary": "Upsert; a token seen under another user moves to this one.",
                "security": [{"userToken": []}],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeviceRegistration"}}}
                },
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Device"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"}
                }
              }
            },
            "/v1/me/devices/{token}": {
              "parameters": [
                {
                  "name": "token",
                  "in": "path",
                  "required": true,
                  "schema": {"type": "string"},
                  "description": "Device token, percent-encoded."
                }
              ],
              "delete": {
                "operationId": "unregisterDevice",
                "tags": ["devices"],
                "summary": "Unregister (sign-out), idempotent.",
                "security": [{"userToken": []}],
                "responses": {
                  "204": {"description": "Done (idempotent)."},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/me/events": {
              "post": {
                "operationId": "ingestEvents",
                "tags": ["events"],
                "summary": "Analytics batch.",
                "security": [{"userToken": []}],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AnalyticsEventBatch"}}}
                },
                "responses": {
                  "202": {
                    "description": "Accepted.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AnalyticsEventReceipt"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"}
                }
              }
            },
            "/v1/app-config": {
              "get": {
                "operationId": "getAppConfig",
                "tags": ["app-config"],
                "summary": "Update decision for the caller's install, deep-link allowlist and catalog.",
                "security": [],
                "parameters": [
                  {
                    "name": "platform",
                    "in": "query",
                    "description": "Without it, update is null.",
                    "schema": {"type": "string", "enum": ["ios", "android"]}
                  },
                  {
                    "name": "version",
                    "in": "query",
                    "description": "Installed semantic version, e.g. 1.7.0.",
                    "schema": {"type": "string"}
                  },
                  {
                    "name": "installSource",
                    "in": "query",
                    "description": "Where the app was installed from (app_store, testflight, play_store or com.android.vending, sideload, ...). Without it there is no update decision (`update` is null). On Android anything but Google Play may be sent to the store.",
                    "schema": {"type": "string"}
                  }
                ],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AppConfigResponse"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"}
                }
              },
              "put": {
                "operationId": "putAppConfig",
                "tags": ["app-config"],
                "summary": "Replaces update policy, allowlist and catalog.",
                "security": [{"apiKey": []}],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AppConfigDocument"}}}
                },
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AppConfigDocument"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"}
                }
              }
            },
            "/v1/notifications": {
              "post": {
                "operationId": "publish",
                "tags": ["publisher"],
                "summary": "One notification per recipient.",
                "security": [{"apiKey": []}],
                "parameters": [
                  {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "description": "Visible ASCII; replays the first answer for 24 hours.",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 255}
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PublishRequest"}}}
                },
                "responses": {
                  "202": {
                    "description": "Created, in recipient order.",
                    "headers": {
                      "Idempotent-Replayed": {"$ref": "#/components/headers/IdempotentReplayed"}
                    },
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PublishResponse"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"},
                  "422": {"$ref": "#/components/responses/Unprocessable"}
                }
              }
            },
            "/v1/notifications/{id}/push-preview": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "Notification id (one recipient's row)."}],
              "get": {
                "operationId": "pushPreview",
                "tags": ["publisher"],
                "summary": "What APNs, FCM and Expo would receive for this notification: the same data for every provider, title and body cut to 150 characters, the recipient's current unseen count as badge. Device tokens are left out. Any row of any recipient, including deleted and admin.* rows.",
                "security": [{"apiKey": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PushPreview"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/notifications/{id}/deliveries": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "Notification id (one recipient's row)."}],
              "get": {
                "operationId": "listDeliveries",
                "tags": ["publisher"],
                "summary": "Where the push of this notification stands on each of its recipient's active devices (as of publish): queued, sending, sent, failed, skipped (with its reason), expired or deferred (quiet hours). A recipient without an active device has one skipped item with reason no_device and a null device. Empty when the publish did not ask for push.",
                "security": [{"apiKey": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeliveryList"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/broadcasts": {
              "get": {
                "operationId": "listBroadcasts",
                "tags": ["publisher"],
                "summary": "Every broadcast with its progress, newest first.",
                "security": [{"apiKey": []}],
                "parameters": [
                  {
                    "name": "limit",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
                  },
                  {
                    "name": "cursor",
                    "in": "query",
                    "description": "nextCursor of the previous page.",
                    "schema": {"type": "string"}
                  }
                ],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BroadcastList"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              },
              "post": {
                "operationId": "createBroadcast",
                "tags": ["publisher"],
                "summary": "The notification of a publish to every user Herald knows (anyone with a device, stored preferences or an inbox row) or to listed user ids. Stored and answered at once (queued); a background job fans it out in chunks of users, each written like a publish (inbox row, live event, push under each user's preferences), and never reaches a user twice, even across a restart.",
                "security": [{"apiKey": []}],
                "parameters": [
                  {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "description": "Visible ASCII; replays the first answer (the same broadcast, as it stands) for 24 hours.",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 255}
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BroadcastRequest"}}}
                },
                "responses": {
                  "202": {
                    "description": "Stored and queued.",
                    "headers": {
                      "Location": {"description": "/v1/broadcasts/{id}", "schema": {"type": "string"}},
                      "Idempotent-Replayed": {"$ref": "#/components/headers/IdempotentReplayed"}
                    },
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Broadcast"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "409": {"$ref": "#/components/responses/TooManyBroadcasts"},
                  "413": {"$ref": "#/components/responses/PayloadTooLarge"},
                  "422": {"$ref": "#/components/responses/Unprocessable"}
                }
              }
            },
            "/v1/broadcasts/{id}": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "Broadcast id."}],
              "get": {
                "operationId": "getBroadcast",
                "tags": ["publisher"],
                "summary": "A broadcast and the progress of its fan-out.",
                "security": [{"apiKey": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Broadcast"}}}
                  },
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/users/{id}/devices": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "User id."}],
              "get": {
                "operationId": "listUserDevices",
                "tags": ["publisher"],
                "summary": "A user's devices.",
                "security": [{"apiKey": []}],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeviceList"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/users/{id}/devices/{token}": {
              "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "User id."},
                {
                  "name": "token",
                  "in": "path",
                  "required": true,
                  "schema": {"type": "string"},
                  "description": "Device token, percent-encoded."
                }
              ],
              "delete": {
                "operationId": "removeUserDevice",
                "tags": ["publisher"],
                "summary": "Removes one device of a user.",
                "security": [{"apiKey": []}],
                "responses": {
                  "204": {"description": "Removed."},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            }
          },
          "components": {
            "headers": {
              "IdempotentReplayed": {
                "description": "true when answered from an earlier request with the same key.",
                "schema": {"type": "string", "enum": ["true"]}
              }
            },
            "securitySchemes": {
              "userToken": {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "JWT",
                "description": "HS256 JWT; sub is the user id (herald token --user ID)."
              },
              "apiKey": {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "API key",
                "description": "Publisher API key from herald keys create (X-Api-Key also accepted)."
              }
            },
            "responses": {
              "BadRequest": {
                "description": "Bad input: invalid_json, invalid_body, invalid_cursor, invalid_limit, unknown_category, too_long, invalid_platform, invalid_version, invalid_idempotency_key, invalid_last_event_id, ...",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "Unauthenticated": {
                "description": "unauthenticated: missing or invalid credentials.",
                "headers": {
                  "WWW-Authenticate": {
                    "schema": {"type": "string"},
                    "description": "RFC 6750: Bearer realm=\"herald\" when no credential was sent; Bearer realm=\"herald\", error=\"invalid_token\", error_description=\"...\" (the error message) when it was refused."
                  }
                },
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "NotFound": {
                "description": "not_found",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "MethodNotAllowed": {
                "description": "method_not_allowed: the path exists, the method does not.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "PayloadTooLarge": {
                "description": "payload_too_large: the body is over --max-body-bytes; publish_too_large (POST /v1/notifications): recipients x the bytes of title, body, data, deepLink and detail are over --max-publish-bytes (default 16777216); nothing is written.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "RateLimited": {
                "description": "rate_limited: the API key is over its call rate (--publisher-rate calls a second, bursts of --publisher-burst); the call was not made.",
                "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Whole seconds until the key may call again."}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "TooManyBroadcasts": {
                "description": "too_many_broadcasts: the API key already has --max-active-broadcasts (default 5) broadcasts queued or running; nothing was stored. Send it again once one has completed.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "Unprocessable": {
                "description": "idempotency_key_reused: the key was used in the last 24 hours with a different body.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "ServiceUnavailable": {
                "description": "not_ready",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "Unavailable": {
                "description": "timeout (the request ran out of time) or database_unavailable (PostgreSQL cannot be reached, or no pooled connection came free in time); Retry-After says when to try again.",
                "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds."}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              }
            },
            "schemas": {
              "AnalyticsEvent": {
                "type": "object",
                "required": ["name", "at"],
                "properties": {
                  "name": {"type": "string", "minLength": 1, "maxLength": 100},
                  "at": {"type": "string", "format": "date-time"},
                  "properties": {"type": ["object", "null"], "additionalProperties": true, "description": "Free-form JSON values."}
                }
              },
              "AnalyticsEventBatch": {
                "type": "object",
                "required": ["events"],
                "properties": {
                  "events": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 100,
                    "items": {"$ref": "#/components/schemas/AnalyticsEvent"}
                  }
                }
              },
              "AnalyticsEventReceipt": {
                "type": "object",
                "required": ["accepted"],
                "properties": {"accepted": {"type": "integer", "minimum": 0}}
              },
              "AppConfigDocument": {
                "type": "object",
                "properties": {
                  "update": {"oneOf": [{"$ref": "#/components/schemas/UpdatePolicy"}, {"type": "null"}]},
                  "deepLinks": {"oneOf": [{"$ref": "#/components/schemas/DeepLinkPolicy"}, {"type": "null"}]},
                  "catalog": {
                    "oneOf": [{"$ref": "#/components/schemas/Catalog"}, {"type": "null"}],
                    "description": "null: the default catalog."
                  }
                }
              },
              "AppConfigResponse": {
                "type": "object",
                "required": ["update", "deepLinks", "catalog"],
                "properties": {
                  "update": {
                    "oneOf": [{"$ref": "#/components/schemas/UpdateDecision"}, {"type": "null"}],
                    "description": "null without platform or policy."
                  },
                  "deepLinks": {"$ref": "#/components/schemas/DeepLinkPolicy"},
                  "catalog": {"$ref": "#/components/schemas/Catalog"}
                }
              },
              "Catalog": {
                "type": "object",
                "required": ["categories", "types"],
                "properties": {
                  "categories": {"type": "array", "items": {"$ref": "#/components/schemas/CatalogCategory"}},
                  "types": {"type": "array", "items": {"$ref": "#/components/schemas/CatalogTypeRule"}}
                }
              },
              "CatalogCategory": {
                "type": "object",
                "required": ["id", "chip"],
                "properties": {
                  "id": {"type": "string"},
                  "chip": {"type": "string"},
                  "preferenceToggle": {"type": ["string", "null"], "description": "null: cannot opt out."}
                }
              },
              "CatalogTypeRule": {
                "type": "object",
                "required": ["prefix", "hidden"],
                "properties": {
                  "prefix": {"type": "string"},
                  "category": {"type": ["string", "null"], "description": "null: All only."},
                  "hidden": {"type": "boolean"},
                  "route": {"oneOf": [{"$ref": "#/components/schemas/TapRoute"}, {"type": "null"}]}
                }
              },
              "Counts": {
                "type": "object",
                "required": ["unread", "unseen"],
                "properties": {"unread": {"type": "integer", "minimum": 0}, "unseen": {"type": "integer", "minimum": 0}}
              },
              "DeepLinkPolicy": {
                "type": "object",
                "required": ["allowedPrefixes"],
                "properties": {"allowedPrefixes": {"type": "array", "maxItems": 100, "items": {"type": "string"}}}
              },
              "Device": {
                "type": "object",
                "required": ["token", "userId", "provider", "platform", "environment", "active", "createdAt", "updatedAt"],
                "properties": {
                  "token": {"type": "string"},
                  "userId": {"type": "string"},
                  "provider": {"type": "string", "enum": ["apns", "fcm", "expo"]},
                  "platform": {"type": "string", "enum": ["ios", "android"]},
                  "environment": {"type": "string", "enum": ["production", "development"]},
                  "appVersion": {"type": ["string", "null"]},
                  "locale": {"type": ["string", "null"]},
                  "timeZone": {"type": ["string", "null"]},
                  "active": {"type": "boolean"},
                  "createdAt": {"type": "string", "format": "date-time"},
                  "updatedAt": {"type": "string", "format": "date-time"}
                }
              },
              "DeviceList": {
                "type": "object",
                "required": ["items"],
                "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Device"}}}
              },
              "DeviceRegistration": {
                "type": "object",
                "required": ["token", "provider", "platform"],
                "properties": {
                  "token": {"type": "string", "minLength": 1, "maxLength": 4096},
                  "provider": {"type": "string", "enum": ["apns", "fcm", "expo"]},
                  "platform": {"type": "string", "enum": ["ios", "android"]},
                  "environment": {
                    "type": ["string", "null"],
                    "enum": ["production", "development", null],
                    "description": "Default production."
                  },
                  "appVersion": {"type": ["string", "null"], "maxLength": 32},
                  "locale": {"type": ["string", "null"], "maxLength": 35},
                  "timeZone": {"type": ["string", "null"]}
                }
              },
              "Error": {
                "type": "object",
                "required": ["error"],
                "properties": {
                  "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                      "code": {"type": "string", "description": "Stable snake_case code."},
                      "message": {"type": "string", "description": "Human text."}
                    }
                  }
                }
              },
              "InboxNotification": {
                "type": "object",
                "required": ["id", "type", "title", "body", "data", "hasDetail", "createdAt"],
                "properties": {
                  "id": {"type": "string"},
                  "type": {"type": "string", "maxLength": 100, "pattern": "^[a-z0-9_]+(\\.[a-z0-9_-]+)*$"},
                  "category": {"type": ["string", "null"], "description": "Catalog category; null for types shown under All only."},
                  "title": {"type": "string", "maxLength": 200},
                  "body": {"type": "string", "maxLength": 2000},
                  "data": {"$ref": "#/components/schemas/NotificationData"},
                  "deepLink": {"type": ["string", "null"], "maxLength": 2048},
                  "hasDetail": {"type": "boolean"},
                  "createdAt": {"type": "string", "format": "date-time"},
                  "readAt": {"type": ["string", "null"], "format": "date-time"},
                  "seenAt": {"type": ["string", "null"], "format": "date-time"},
                  "detail": {
                    "oneOf": [{"$ref": "#/components/schemas/NotificationDetail"}, {"type": "null"}],
                    "description": "Present only on GET /v1/me/notifications/{id}."
                  }
                }
              },
              "NotificationData": {
                "type": "object",
                "maxProperties": 50,
                "additionalProperties": {"type": "string", "maxLength": 1024},
                "description": "Publisher data, string values."
              },
              "NotificationDetail": {
                "type": "object",
                "properties": {
                  "heroImageURL": {"type": ["string", "null"]},
                  "html": {
                    "type": ["string", "null"],
                    "maxLength": 100000,
                    "description": "Reduced to the safe subset before it is stored."
                  },
                  "actionLabel": {"type": ["string", "null"], "maxLength": 60},
                  "actionPath": {"type": ["string", "null"], "description": "In-app path such as /orders/123."},
                  "actionURL": {"type": ["string", "null"], "description": "Absolute https URL."}
                }
              },
              "NotificationPage": {
                "type": "object",
                "required": ["items", "unreadCount", "unseenCount"],
                "properties": {
                  "items": {"type": "array", "items": {"$ref": "#/components/schemas/InboxNotification"}},
                  "nextCursor": {"type": ["string", "null"], "description": "Opaque; null on the last page."},
                  "unreadCount": {"type": "integer", "minimum": 0},
                  "unseenCount": {"type": "integer", "minimum": 0}
                }
              },
              "PermissionDecision": {"type": "object", "required": ["granted"], "properties": {"granted": {"type": "boolean"}}},
              "PermissionSync": {
                "type": "object",
                "required": ["status"],
                "properties": {"status": {"type": "string", "enum": ["granted", "denied", "undetermined"]}}
              },
              "PlatformUpdatePolicy": {
                "type": "object",
                "properties": {
                  "minimumVersion": {"type": ["string", "null"], "description": "Semantic version; below it the app asks to update."},
                  "storeURL": {"type": ["string", "null"]},
                  "sideloadPrompt": {"type": ["boolean", "null"], "description": "Android: send sideloaded installs to the Play Store."}
                }
              },
              "Preferences": {
                "type": "object",
                "required": ["globalEnabled", "osPermissionGranted", "categories", "disabledTypes", "quietHours"],
                "properties": {
                  "globalEnabled": {"type": "boolean"},
                  "osPermissionGranted": {"type": ["boolean", "null"], "description": "null while never asked."},
                  "categories": {
                    "type": "object",
                    "additionalProperties": {"type": "boolean"},
                    "description": "Category id to enabled."
                  },
                  "disabledTypes": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 100}},
                  "quietHours": {"oneOf": [{"$ref": "#/components/schemas/QuietHours"}, {"type": "null"}]}
                }
              },
              "PreferencesPatch": {
                "type": "object",
                "properties": {
                  "globalEnabled": {"type": ["boolean", "null"]},
                  "categories": {
                    "type": ["object", "null"],
                    "additionalProperties": {"type": "boolean"},
                    "description": "Merged key by key; the account category is a 400."
                  },
                  "disabledTypes": {
                    "type": ["array", "null"],
                    "maxItems": 100,
                    "items": {"type": "string", "maxLength": 100},
                    "description": "Replaces the stored list."
                  },
                  "quietHours": {
                    "oneOf": [{"$ref": "#/components/schemas/QuietHours"}, {"type": "null"}],
                    "description": "null clears; absent keeps."
                  }
                },
                "description": "Every field optional; what it does not name is kept."
              },
              "PublishRequest": {
                "type": "object",
                "required": ["recipients", "type", "title", "body"],
                "properties": {
                  "recipients": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 1000,
                    "uniqueItems": true,
                    "items": {"type": "string", "description": "User id."}
                  },
                  "type": {"type": "string", "maxLength": 100, "pattern": "^[a-z0-9_]+(\\.[a-z0-9_-]+)*$"},
                  "title": {"type": "string", "maxLength": 200},
                  "body": {"type": "string", "maxLength": 2000},
                  "data": {"oneOf": [{"$ref": "#/components/schemas/NotificationData"}, {"type": "null"}]},
                  "deepLink": {"type": ["string", "null"], "maxLength": 2048},
                  "detail": {"oneOf": [{"$ref": "#/components/schemas/NotificationDetail"}, {"type": "null"}]},
                  "push": {"oneOf": [{"$ref": "#/components/schemas/PushOptions"}, {"type": "null"}]}
                }
              },
              "BroadcastRequest": {
                "type": "object",
                "required": ["audience", "type", "title", "body"],
                "properties": {
                  "audience": {
                    "oneOf": [
                      {"type": "string", "enum": ["all"], "description": "Every user Herald knows."},
                      {
                        "type": "object",
                        "required": ["userIds"],
                        "properties": {
                          "userIds": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 100000,
                            "items": {"type": "string", "description": "User id."},
                            "description": "A repeated id is reached once. The request body limit applies too."
                          }
                        }
                      }
                    ]
                  },
                  "type": {"type": "string", "maxLength": 100, "pattern": "^[a-z0-9_]+(\\.[a-z0-9_-]+)*$"},
                  "title": {"type": "string", "maxLength": 200},
                  "body": {"type": "string", "maxLength": 2000},
                  "data": {"oneOf": [{"$ref": "#/components/schemas/NotificationData"}, {"type": "null"}]},
                  "deepLink": {"type": ["string", "null"], "maxLength": 2048},
                  "detail": {"oneOf": [{"$ref": "#/components/schemas/NotificationDetail"}, {"type": "null"}]},
                  "push": {"oneOf": [{"$ref": "#/components/schemas/PushOptions"}, {"type": "null"}]}
                }
              },
              "BroadcastList": {
                "type": "object",
                "required": ["items", "nextCursor"],
                "properties": {
                  "items": {"type": "array", "items": {"$ref": "#/components/schemas/Broadcast"}},
                  "nextCursor": {"type": ["string", "null"], "description": "null on the last page."}
                }
              },
              "Broadcast": {
                "type": "object",
                "required": ["id", "status", "audience", "total", "processed", "failureReason", "createdAt", "startedAt", "completedAt"],
                "properties": {
                  "id": {"type": "string"},
                  "status": {"type": "string", "enum": ["queued", "running", "completed", "failed"]},
                  "audience": {"type": "string", "enum": ["all", "users"]},
                  "total": {
                    "type": ["integer", "null"],
                    "description": "users: the distinct listed ids. all: null until the fan-out starts, then the users known at its start; once completed, the users reached (users who became known during the fan-out are reached when their id sorts after the ones already reached)."
                  },
                  "processed": {"type": "integer", "description": "Users given the notification so far."},
                  "failureReason": {"type": ["string", "null"]},
                  "createdAt": {"type": "string", "format": "date-time"},
                  "startedAt": {"type": ["string", "null"], "format": "date-time"},
                  "completedAt": {"type": ["string", "null"], "format": "date-time"}
                }
              },
              "PublishResponse": {
                "type": "object",
                "required": ["notifications"],
                "properties": {
                  "notifications": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/PublishedNotification"},
                    "description": "In recipient order."
                  }
                }
              },
              "PublishedNotification": {
                "type": "object",
                "required": ["id", "recipient"],
                "properties": {"id": {"type": "string"}, "recipient": {"type": "string"}}
              },
              "PushOptions": {
                "type": "object",
                "required": ["send"],
                "properties": {
                  "send": {"type": "boolean", "description": "Push at all; the inbox row is written either way."},
                  "priority": {"type": ["string", "null"], "enum": ["high", "normal", null]},
                  "ttlSeconds": {"type": ["integer", "null"], "minimum": 0, "maximum": 2419200},
                  "collapseId": {"type": ["string", "null"], "maxLength": 64},
                  "sound": {
                    "type": ["string", "null"],
                    "minLength": 1,
                    "maxLength": 64,
                    "description": "The sound the push plays: a sound file bundled with the app (no slashes), `default` (the platform's default sound) or `none` (a silent push: no sound key reaches the providers). Omitted or null means `default`."
                  }
                }
              },
              "PushData": {
                "type": "object",
                "description": "The data every provider carries, string values. Publisher data keys never replace the routing keys; keys a provider reserves (aps, from, message_type, notification, collapse_key, google*, gcm*) are left out.",
                "required": ["notificationId", "type", "hasDetail"],
                "properties": {
                  "notificationId": {"type": "string"},
                  "type": {"type": "string"},
                  "deepLink": {"type": "string"},
                  "hasDetail": {"type": "string", "enum": ["true", "false"]},
                  "eventKind": {"type": "string", "description": "The event kind, echoed; the publisher's data.eventKind."}
                },
                "additionalProperties": {"type": "string"}
              },
              "PushAPS": {
                "type": "object",
                "required": ["alert"],
                "properties": {
                  "alert": {
                    "type": "object",
                    "required": ["title", "body"],
                    "properties": {"title": {"type": "string", "maxLength": 150}, "body": {"type": "string", "maxLength": 150}}
                  },
                  "sound": {"type": "string", "description": "`default` unless the publisher named a sound; left out of a silent push."},
                  "badge": {"type": "integer", "minimum": 0, "description": "The recipient's unseen count."}
                }
              },
              "DeliveryList": {
                "type": "object",
                "required": ["items"],
                "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Delivery"}}}
              },
              "Delivery": {
                "type": "object",
                "required": ["id", "deviceToken", "provider", "platform", "status", "reason", "attempts", "nextAttemptAt", "updatedAt"],
                "properties": {
                  "id": {"type": "string", "description": "Stable across attempts; the APNs apns-id."},
                  "deviceToken": {"type": ["string", "null"], "description": "Masked: an ellipsis and the token's last 8 characters. Null on the no_device item."},
                  "provider": {"type": ["string", "null"], "enum": ["apns", "fcm", "expo", null]},
                  "platform": {"type": ["string", "null"], "enum": ["ios", "android", null]},
                  "status": {"type": "string", "enum": ["queued", "sending", "sent", "failed", "skipped", "expired", "deferred"]},
                  "reason": {"type": ["string", "null"], "description": "Why it was skipped (global_off, os_denied, category_off, type_disabled, no_device; device_inactive when the device was pruned, unregistered or moved to another user before it was sent), failed or last retried (the provider's reason), or ttl_expired."},
                  "attempts": {"type": "integer", "minimum": 0},
                  "nextAttemptAt": {"type": ["string", "null"], "format": "date-time", "description": "When it is next tried: the send time of a queued or deferred item, the lease expiry of a sending one; null once final."},
                  "updatedAt": {"type": "string", "format": "date-time"}
                }
              },
              "PushPreview": {
                "type": "object",
                "required": ["data", "apns", "fcm", "expo"],
                "properties": {
                  "data": {"$ref": "#/components/schemas/PushData"},
                  "apns": {
                    "type": "object",
                    "description": "APNs body: aps, and the data keys at the top level.",
                    "required": ["aps"],
                    "properties": {"aps": {"$ref": "#/components/schemas/PushAPS"}},
                    "additionalProperties": {"type": "string"}
                  },
                  "fcm": {
                    "type": "object",
                    "description": "FCM HTTP v1 body (message.token left out).",
                    "required": ["message"],
                    "properties": {
                      "message": {
                        "type": "object",
                        "required": ["notification", "data", "android", "apns"],
                        "properties": {
                          "notification": {"type": "object", "properties": {"title": {"type": "string"}, "body": {"type": "string"}}},
                          "data": {"$ref": "#/components/schemas/PushData"},
                          "android": {
                            "type": "object",
                            "required": ["priority"],
                            "properties": {
                              "priority": {"type": "string", "enum": ["HIGH", "NORMAL"]},
                              "ttl": {"type": "string", "description": "Seconds, e.g. 3600s."},
                              "collapse_key": {"type": "string"},
                              "notification": {"type": "object", "description": "Left out of a silent push.", "properties": {"sound": {"type": "string", "description": "`default` unless the publisher named a sound."}}}
                            }
                          },
                          "apns": {
                            "type": "object",
                            "properties": {
                              "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                              "payload": {"type": "object", "properties": {"aps": {"$ref": "#/components/schemas/PushAPS"}}}
                            }
                          }
                        }
                      }
                    }
                  },
                  "expo": {
                    "type": "object",
                    "description": "Expo push message (to left out).",
                    "required": ["title", "body", "data", "priority"],
                    "properties": {
                      "title": {"type": "string"},
                      "body": {"type": "string"},
                      "data": {"$ref": "#/components/schemas/PushData"},
                      "sound": {"type": "string", "description": "`default` unless the publisher named a sound; left out of a silent push."},
                      "badge": {"type": "integer", "minimum": 0},
                      "priority": {"type": "string", "enum": ["high", "normal"]},
                      "ttl": {"type": "integer", "minimum": 0}
                    }
                  }
                }
              },
              "QuietHours": {
                "type": "object",
                "required": ["start", "end", "timeZone"],
                "properties": {
                  "start": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "description": "HH:mm"},
                  "end": {
                    "type": "string",
                    "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$",
                    "description": "HH:mm; before start runs over midnight."
                  },
                  "timeZone": {"type": "string", "description": "IANA name, e.g. Europe/Amsterdam."}
                }
              },
              "Status": {"type": "object", "required": ["status"], "properties": {"status": {"type": "string"}}},
              "TapRoute": {
                "type": "object",
                "required": ["path"],
                "properties": {
                  "path": {"type": "string", "description": "{key} placeholders filled from data."},
                  "fallbackPath": {"type": ["string", "null"]}
                }
              },
              "UpdateDecision": {
                "type": "object",
                "required": ["kind"],
                "properties": {
                  "kind": {"type": "string", "enum": ["none", "version", "store"]},
                  "minimumVersion": {"type": ["string", "null"]},
                  "storeURL": {"type": ["string", "null"]}
                }
              },
              "UpdatePolicy": {
                "type": "object",
                "properties": {
                  "ios": {"oneOf": [{"$ref": "#/components/schemas/PlatformUpdatePolicy"}, {"type": "null"}]},
                  "android": {"oneOf": [{"$ref": "#/components/schemas/PlatformUpdatePolicy"}, {"type": "null"}]}
                }
              }
            }
          }
        }
        """#
}
