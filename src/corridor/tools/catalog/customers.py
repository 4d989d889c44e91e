"""Customer tools: list, get, and create a business customer (which binds a platform
session to it, spec 5.7)."""

from __future__ import annotations

from corridor.auth.scopes import Scope
from corridor.customers import reading
from corridor.customers import service as customers
from corridor.customers.schemas.customer import BusinessCustomerCreate, CustomerRead
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.tools.base import Tool, ToolContext, ToolInput, ToolKind
from corridor.tools.catalog.common import CustomerId, PagedInput
from corridor.tools.results import ListResult


class ListCustomers(PagedInput):
    status: CustomerStatus | None = None
    type: CustomerType | None = None


class GetCustomer(ToolInput):
    customer_id: CustomerId


async def list_customers(context: ToolContext, args: ListCustomers) -> ListResult[CustomerRead]:
    found = await customers.list_customers(
        context.session,
        caller=context.caller,
        page=args.page(),
        status=args.status,
        type_=args.type,
        email=None,
    )
    return ListResult[CustomerRead].of(found, CustomerRead.of)


async def get_customer(context: ToolContext, args: GetCustomer) -> CustomerRead:
    view = await reading.read_customer(
        context.session, caller=context.caller, customer_id=args.customer_id
    )
    return CustomerRead.of(view.customer)


async def create_business_customer(
    context: ToolContext, args: BusinessCustomerCreate
) -> CustomerRead:
    customer = await customers.create_business(
        context.session, caller=context.caller, data=args, now=context.now
    )
    return CustomerRead.of(customer)


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_customers",
        title="List customers",
        description=(
            "List the customers (people and businesses) this credential may see, newest "
            "first. Filter by status (ACTIVE customers move money) or type."
        ),
        input=ListCustomers,
        result=ListResult[CustomerRead],
        kind=ToolKind.READ,
        scope=Scope.CUSTOMERS_READ,
        handler=list_customers,
    ),
    Tool(
        name="get_customer",
        title="Get a customer",
        description="One customer by id: name, type, status, email.",
        input=GetCustomer,
        result=CustomerRead,
        kind=ToolKind.READ,
        scope=Scope.CUSTOMERS_READ,
        handler=get_customer,
    ),
    Tool(
        name="create_business_customer",
        title="Create a business customer",
        description=(
            "Create a business customer (legalName, email; optional dbaName, address, "
            "website). It starts INCOMPLETE until verified. In a platform MCP session the "
            "session becomes bound to this customer."
        ),
        input=BusinessCustomerCreate,
        result=CustomerRead,
        kind=ToolKind.WRITE,
        scope=Scope.CUSTOMERS_WRITE,
        handler=create_business_customer,
        for_agent_keys=False,
        summarize=lambda args, _result: f"Create the business customer {args.legal_name!r}",
    ),
)
