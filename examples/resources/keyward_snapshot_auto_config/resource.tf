# Hourly snapshots on the server's disk, the last 24 kept within 10 GiB.
resource "keyward_snapshot_auto_config" "local" {
  name            = "hourly"
  storage_type    = "local"
  interval        = "1h"
  retain          = 24
  path_prefix     = "/var/lib/vault/snapshots"
  local_max_space = 10737418240
}

# Daily snapshots to an S3 bucket, kept a week. The secret access key is read from the
# SNAPSHOT_S3_SECRET_ACCESS_KEY environment variable at plan and apply, never stored.
resource "keyward_snapshot_auto_config" "s3" {
  name                           = "daily-s3"
  storage_type                   = "cloudone-store"
  interval                       = "24h"
  retain                         = 7
  path_prefix                    = "vault/"
  cloudone_bucket                = "vault-snapshots"
  cloudone_region                = "eu-west-1"
  cloudone_access_key_id         = "EXAMPLE-ACCESS-KEY-ID"
  cloudone_secret_access_key_env = "SNAPSHOT_S3_SECRET_ACCESS_KEY"
}
