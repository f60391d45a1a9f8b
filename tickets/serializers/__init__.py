"""Input and output serializers of the inbox API (one pair per operation), one module per
entity: tickets (with their messages and versioned writes), escalations and notifications;
fast_paths builds the list and detail bodies without DRF."""
