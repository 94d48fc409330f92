/**
 * Client authorization on the client port (docs/security.md, "Client authorization"): who a connection is
 * (its certificate's CN), what the roles it holds grant on key prefixes, and the check of each request
 * against the node's applied copy of the authorization table.
 */
package io.synod.server.auth;
