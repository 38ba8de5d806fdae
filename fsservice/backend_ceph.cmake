# CephFS backend (libcephfs): target danaus_backend_ceph.
