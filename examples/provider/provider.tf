terraform {
  required_providers {
    keyward = {
      source = "keyward/keyward"
    }
  }
}

# The token comes only from the VAULT_TOKEN environment variable; VAULT_ADDR, when set, overrides
# address. Install the provider with `npx keyward terraform install` (see the README).
provider "keyward" {
  address          = "https://vault.example.com:8200"
  fingerprint_salt = var.fingerprint_salt
}

variable "fingerprint_salt" {
  description = "Key of the secret fingerprints kept in state (any long random string)."
  type        = string
  sensitive   = true
}
