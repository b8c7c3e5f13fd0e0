# The configuration's name.
terraform import keyward_snapshot_auto_config.local hourly
