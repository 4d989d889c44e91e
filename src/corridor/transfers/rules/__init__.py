"""Pure transfer rules: the state machine, flows and legs, fees, FX and pricing."""
