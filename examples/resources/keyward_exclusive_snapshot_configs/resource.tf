# Every other automated snapshot configuration on the server is deleted at apply.
resource "keyward_exclusive_snapshot_configs" "all" {
  names = [
    keyward_snapshot_auto_config.local.name,
    keyward_snapshot_auto_config.s3.name,
  ]
}
