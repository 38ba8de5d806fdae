# Local-directory backend: target danaus_backend_local.
