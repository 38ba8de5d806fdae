#!/usr/bin/env python3
"""hostile_image.py KIND DIR VARIANT: the files of an image as its attacker
writes them, for hostile_images.sh. KIND is docker (a `docker save`
archive's files) or oci (an OCI image layout); its one layer is bb.tar, next
to DIR. VARIANT: good (as the tools write it); layer-link, manifest-link,
blob-link, index-link (that file a symlink to the host's copy: host.tar, or
a manifest or index naming it); blobs-link (blobs/sha256 a symlink to a
host directory); digest (host.tar's bytes under bb.tar's digest); size (a
declared size one byte too large); config (a docker archive whose image
configuration is the text of $HOSTILE_CONFIG)."""
import hashlib
import json
import os
import sys

kind, d, variant = sys.argv[1:]
work = os.path.dirname(d)
layer = open(os.path.join(work, 'bb.tar'), 'rb').read()
host = open(os.path.join(work, 'host.tar'), 'rb').read()


def sha(b):
    return hashlib.sha256(b).hexdigest()


def put(path, b):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(b)


def link_or_put(name, b, link):
    """name in d, or, when link, a symlink to a host copy of it."""
    copy = os.path.join(work, 'host-' + os.path.basename(name))
    put(copy, b)
    if link:
        os.symlink(copy, os.path.join(d, name))
    else:
        put(os.path.join(d, name), b)


def desc(b, media_type):
    return {'mediaType': media_type, 'digest': 'sha256:' + sha(b),
            'size': len(b)}


def docker():
    name = 'blobs/sha256/' + sha(layer) if variant == 'digest' else 'l.tar'
    put(os.path.join(d, 'c.json'), os.environ['HOSTILE_CONFIG'].encode()
        if variant == 'config' else b'{}')
    if variant == 'layer-link':
        os.symlink(os.path.join(work, 'host.tar'), os.path.join(d, name))
    else:
        put(os.path.join(d, name), host if variant == 'digest' else layer)
    manifest = [{'Config': 'c.json', 'RepoTags': [], 'Layers': [name]}]
    link_or_put('manifest.json', json.dumps(manifest).encode(),
                variant == 'manifest-link')


def oci():
    blobs = os.path.join(d, 'blobs', 'sha256')
    tar = 'application/vnd.oci.image.layer.v1.tar'
    ldesc = desc(layer, tar)
    if variant == 'blob-link':
        ldesc = desc(host, tar)
        os.makedirs(blobs)
        os.symlink(os.path.join(work, 'host.tar'),
                   os.path.join(blobs, sha(host)))
    elif variant == 'digest':
        put(os.path.join(blobs, sha(layer)), host)
        ldesc['size'] = len(host)
    else:
        put(os.path.join(blobs, sha(layer)), layer)
    if variant == 'size':
        ldesc['size'] += 1
    config = json.dumps({'architecture': 'amd64', 'os': 'linux', 'rootfs': {
        'type': 'layers', 'diff_ids': ['sha256:' + sha(layer)]}}).encode()
    manifest = json.dumps({'schemaVersion': 2, 'layers': [ldesc], 'config':
                           desc(config, 'application/vnd.oci.image.config.'
                                        'v1+json')}).encode()
    put(os.path.join(blobs, sha(config)), config)
    put(os.path.join(blobs, sha(manifest)), manifest)
    index = {'schemaVersion': 2, 'manifests': [desc(
        manifest, 'application/vnd.oci.image.manifest.v1+json')]}
    put(os.path.join(d, 'oci-layout'), b'{"imageLayoutVersion": "1.0.0"}')
    link_or_put('index.json', json.dumps(index).encode(),
                variant == 'index-link')
    if variant == 'blobs-link':
        os.rename(blobs, os.path.join(work, 'host-blobs'))
        os.symlink(os.path.join(work, 'host-blobs'), blobs)


os.makedirs(d)
docker() if kind == 'docker' else oci()
