"""Agent mandates (issue 25, API.md §9): what an owner authorised an agent to pay."""
