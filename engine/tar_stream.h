/*
 * tar_stream.h - a tar stream at one end of danaus cp (cp.h): `cp -
 * NAME:DIR` reads one from stdin, `cp NAME:PATH -` writes one to stdout.
 * The other end is the container's side of the tree stream
 * (tree_stream.h), which makes or walks the files as it does for a host
 * path.
 */
#ifndef ENGINE_TAR_STREAM_H
#define ENGINE_TAR_STREAM_H

/* Reads a tar archive (ustar, pax or GNU) from in and sends its members
 * on sock as the entries of one directory (for tree_receive with
 * TREE_CONTENTS), then waits for the receiver's answer. The archive is
 * an attacker's: a member whose name climbs out of the directory with
 * "..", a symbolic link whose relative target does, or a hard link to a
 * path that does, fails the copy, as docker's does; a leading '/' is
 * dropped (names are taken below the directory); device nodes and FIFOs
 * are left out, each said on stderr, as docker leaves them out in a
 * user namespace; any other kind but files, directories and links fails
 * the copy. 0, or -1 (fail.h). */
int tar_send(int in, int sock);

/* Receives what the sender sends on sock and writes it to out as a tar
 * archive (ustar, with pax records for long names), the top entry's
 * name first; modes without setuid, setgid and sticky bits, as cp
 * copies them; then answers. The sender is an attacker's: names must be
 * plain components. 0, or -1 (fail.h). */
int tar_receive(int sock, int out);

#endif
