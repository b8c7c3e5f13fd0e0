terraform {
  required_providers {
    keyward = {
      source = "keyward/keyward"
    }
  }
}

# The token comes from VAULT_TOKEN, then ~/.vault-token; address wins over VAULT_ADDR (a different
# VAULT_ADDR is a warning). Install the provider with `npx keyward terraform install` (see the README).
provider "keyward" {
  address          = "https://vault.example.com:8200"
  fingerprint_salt = var.fingerprint_salt
}

variable "fingerprint_salt" {
  description = "Key of the secret fingerprints kept in state (any long random string)."
  type        = string
  sensitive   = true
}
