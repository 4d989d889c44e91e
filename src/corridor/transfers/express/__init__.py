"""The express create+submit: the commonest transfer in two statements (PostgreSQL).

An organization's own key sending from a customer's balance account to the customer's
own bank account, submitted at once (`POST /v1/transfers`, `confirm: true`), is what a
platform does thousands of times a second. It applies exactly the rules of the general
path (service.create_transfer, then actions.submit), in the same order and through the
same functions (submit.py), but reads every row it needs in one statement and writes the
transfer, its legs, its events, the hold and the idempotent answer in another
(statements.py): no ORM unit of work, two round trips, and one once the rows were read
(known.py keeps them; the write checks they have not changed). Any other request, and
any request the rules refuse, goes the general way, which answers it as it always has.
"""
